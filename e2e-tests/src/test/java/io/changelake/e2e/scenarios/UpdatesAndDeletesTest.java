package io.changelake.e2e.scenarios;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 2: updates and deletes with {@code REPLICA IDENTITY DEFAULT} (Debezium sends updates
 * without a before image and deletes with only the key), and a large TOASTed text column that
 * updates leave unchanged: PostgreSQL does not send its value then, Debezium sends a placeholder,
 * and the table must keep the stored value. Both merge engines: a deduplicate table (the default)
 * fills the placeholder from the stored row (a key lookup), and there columns set to NULL must read
 * NULL; a partial-update table keeps stored values by itself. Keys updated and then deleted in one
 * commit round must be gone (the sink's NOT NULL sequence columns). Not covered on the
 * partial-update table: a column set to NULL, which partial-update reads as "no value" and keeps (a
 * documented limitation in connect-sink's README).
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
  void partialUpdateTableKeepsUnchangedToastedValues() {
    String db = "s2partial";
    createAccounts(db);
    // the sink's advice for TOASTed columns without REPLICA IDENTITY FULL: a partial-update
    // table keeps stored values where the source sent a placeholder; deletes remove the row
    startPipeline(
        db,
        "public.accounts",
        Map.of(
            "table.accounts.merge-engine", "partial-update",
            "table.accounts.delete-policy", "remove-row"));
    awaitLakeEqualsDatabase(db, "accounts");

    changeAccounts(db);
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
