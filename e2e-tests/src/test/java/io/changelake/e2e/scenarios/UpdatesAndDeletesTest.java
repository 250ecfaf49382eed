package io.changelake.e2e.scenarios;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 2: updates and deletes with {@code REPLICA IDENTITY DEFAULT} (Debezium sends updates
 * without a before image and deletes with only the key), and a large TOASTed text column that
 * updates leave unchanged: PostgreSQL does not send its value then, Debezium sends a placeholder,
 * and the table must keep the stored value. Both merge engines: a deduplicate table (the default)
 * fills the placeholder from the stored row (a key lookup); a partial-update table (one sequence
 * group over its columns) too. In both, columns set to NULL must read NULL. Keys updated and then
 * deleted in one commit round must be gone (the sink's NOT NULL sequence columns). The
 * partial-update table is fed by envelopes and by flattened records ({@code ExtractNewRecordState}
 * in the sink, deletes as tombstones).
 */
class UpdatesAndDeletesTest extends PipelineTestBase {

  @Test
  void deduplicateTableFillsUnchangedToastedValuesAndTakesNulls() {
    String db = "s2dedup";
    createAccounts(db);
    startPipeline(db, "public.accounts", Map.of());
    awaitLakeEqualsDatabase(db, "accounts");

    changeAccounts(db);
    pg.execute(
        db,
        "UPDATE accounts SET status = NULL WHERE id % 5 = 0",
        "UPDATE accounts SET balance = NULL, status = 'nulled' WHERE id % 11 = 0");
    awaitLakeEqualsDatabase(db, "accounts");
  }

  @Test
  void partialUpdateTableKeepsUnchangedToastedValuesAndTakesNulls() {
    partialUpdate(
        "s2partial",
        Map.of(
            "table.accounts.merge-engine", "partial-update",
            "table.accounts.delete-policy", "remove-row"));
  }

  @Test
  void partialUpdateTableFromFlattenedRecordsKeepsToastedValuesAndTakesNulls() {
    Map<String, String> flattened = new HashMap<>();
    flattened.put("table.accounts.merge-engine", "partial-update");
    flattened.put("table.accounts.delete-policy", "remove-row");
    flattened.put("input.format", "flattened");
    flattened.put("transforms", "unwrap");
    flattened.put("transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState");
    // deletes stay tombstones (the transform's default), which carry no __table: route by topic
    flattened.put("transforms.unwrap.add.fields", "op,table,lsn");
    flattened.put("route.regex.rules", "s2flat\\.public\\.(.*)=>$1");
    partialUpdate("s2flat", flattened);
  }

  private static void partialUpdate(String db, Map<String, String> sinkOverrides) {
    createAccounts(db);
    startPipeline(db, "public.accounts", sinkOverrides);
    awaitLakeEqualsDatabase(db, "accounts");

    changeAccounts(db);
    pg.execute(
        db,
        "UPDATE accounts SET status = NULL WHERE id % 5 = 0",
        // NULL next to an unchanged TOASTed document, then a key set to NULL and deleted at once
        "UPDATE accounts SET balance = NULL, status = 'nulled' WHERE id % 11 = 0",
        "UPDATE accounts SET document = NULL WHERE id % 13 = 0",
        "UPDATE accounts SET status = NULL WHERE id = 17",
        "DELETE FROM accounts WHERE id = 17");
    awaitLakeEqualsDatabase(db, "accounts");
  }

  private static void createAccounts(String db) {
    createDatabase(db);
    pg.execute(
        db,
        "CREATE TABLE accounts (id int PRIMARY KEY, balance numeric(12,2), status text,"
            + " document text)",
        "ALTER TABLE accounts REPLICA IDENTITY DEFAULT",
        // stored out of line and uncompressed, so even repetitive text is TOASTed
        "ALTER TABLE accounts ALTER COLUMN document SET STORAGE EXTERNAL",
        "INSERT INTO accounts SELECT i, i * 10.5, 'new', repeat(md5(i::text), 400)"
            + " FROM generate_series(1, 200) i");
  }

  private static void changeAccounts(String db) {
    pg.execute(
        db,
        "INSERT INTO accounts SELECT i, i * 10.5, 'new', repeat(md5(i::text), 400)"
            + " FROM generate_series(201, 300) i",
        // the TOASTed document is not touched: pgoutput leaves it out of the change
        "UPDATE accounts SET balance = balance + 1, status = 'touched' WHERE id % 3 = 0",
        "UPDATE accounts SET balance = balance * 2 WHERE id % 6 = 0",
        // and some documents do change
        "UPDATE accounts SET document = repeat('changed' || id, 500) WHERE id % 10 = 1",
        "DELETE FROM accounts WHERE id % 7 = 0",
        // a deleted key comes back, and a primary key changes (delete + create in Debezium)
        "INSERT INTO accounts VALUES (7, 1.25, 'back', repeat('again', 1000))",
        // (a key change must also set the TOASTed column: PostgreSQL does not send an unchanged
        // one for the new key either, and no CDC consumer can recover it then)
        "UPDATE accounts SET id = id + 1000, document = 'moved ' || id WHERE id BETWEEN 20 AND 25");
  }
}
