package io.changelake.e2e.scenarios;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 4: two PostgreSQL tables sharing a key feed one partial-update wide table; each topic
 * contributes its own columns (a sequence group per topic), and the wide table equals the
 * database's full outer join of the two, also while both sides keep changing in any order: columns
 * set to NULL read NULL, a delete on one side clears that side's columns and leaves the other's,
 * and unchanged TOASTed values keep what the table holds. From Debezium envelopes and from
 * flattened records ({@code ExtractNewRecordState} at its defaults: deletes as tombstones, no
 * source position in any record).
 *
 * <p>Not covered because it is a documented limit: a key deleted on both sides stays in the wide
 * table as a row of NULLs, where the join has no row.
 */
class WideTableTest extends PipelineTestBase {

  @Test
  void twoTablesFillOneWideTable() {
    runWideTable("s4", Map.of(), 1);
  }

  @Test
  void twoTablesFillOneWideTableFromTwoTasksOnTopicsOfTwoPartitions() {
    // each task writes the groups of whichever topic partitions it was given, under its own commit
    // user: the groups' sequences, not the writers, decide each column
    runWideTable("s4tasks", Map.of("tasks.max", "2"), 2);
  }

  @Test
  void twoTablesFillOneWideTableFromFlattenedRecords() {
    runWideTable(
        "s4flat",
        Map.of(
            "input.format",
            "flattened",
            "transforms",
            "unwrap",
            "transforms.unwrap.type",
            "io.debezium.transforms.ExtractNewRecordState"),
        1);
  }

  private static void runWideTable(String db, Map<String, String> sinkOverrides, int partitions) {
    createDatabase(db);
    pg.execute(
        db,
        "CREATE TABLE customers (id int PRIMARY KEY, name text, email varchar(80), notes text)",
        "ALTER TABLE customers REPLICA IDENTITY DEFAULT",
        // stored out of line: updates that leave it alone send Debezium's placeholder
        "ALTER TABLE customers ALTER COLUMN notes SET STORAGE EXTERNAL",
        "CREATE TABLE customer_stats (id int PRIMARY KEY, orders int, last_order date,"
            + " revenue numeric(12,2))",
        "INSERT INTO customers SELECT i, 'name ' || i, 'c' || i || '@example.com',"
            + " repeat(md5(i::text), 300) FROM generate_series(1, 100) i",
        // some customers have no stats yet, some stats arrive before their customer
        "INSERT INTO customer_stats SELECT i, i % 13, date '2024-01-01' + i, i * 3.5"
            + " FROM generate_series(50, 150) i",
        "CREATE VIEW customer_wide AS SELECT COALESCE(c.id, s.id) AS id, c.name, c.email,"
            + " c.notes, s.orders, s.last_order, s.revenue"
            + " FROM customers c FULL OUTER JOIN customer_stats s ON c.id = s.id");

    Map<String, String> source =
        new java.util.HashMap<>(
            DebeziumPostgres.config(pg, db, db, "public.customers,public.customer_stats"));
    source.put("topic.creation.default.partitions", String.valueOf(partitions));
    connect.deploy(db + "-pg", source, 1);
    Map<String, String> sink =
        new java.util.HashMap<>(ChangelakeConnectors.sink(warehouse, db + "\\..*", db));
    sink.put("route.regex.rules", db + "\\.public\\.(customers|customer_stats)=>customer_wide");
    sink.put("table.customer_wide.merge-engine", "partial-update");
    // a delete in one of the two source tables clears its columns, not the other's
    sink.put("table.customer_wide.delete-policy", "clear-columns");
    sink.putAll(sinkOverrides);
    connect.deploy(db + "-sink", sink, Integer.parseInt(sink.getOrDefault("tasks.max", "1")));
    awaitWideEqual(db);

    pg.execute(
        db,
        "UPDATE customers SET email = 'new' || id || '@example.com' WHERE id % 4 = 0",
        "UPDATE customer_stats SET orders = orders + 1, revenue = revenue + 10 WHERE id % 3 = 0",
        "INSERT INTO customers SELECT i, 'late ' || i, NULL, 'short' FROM generate_series(101, 120) i",
        "INSERT INTO customer_stats SELECT i, 1, date '2025-01-01', 1"
            + " FROM generate_series(20, 30) i",
        "UPDATE customers SET name = name || ' (vip)' WHERE id BETWEEN 55 AND 60",
        // NULLs on both sides, next to an unchanged TOASTed notes column
        "UPDATE customers SET email = NULL WHERE id % 7 = 0",
        "UPDATE customer_stats SET last_order = NULL, revenue = NULL WHERE id % 5 = 0",
        // one side deleted, the other side stays: customers with stats, stats with a customer
        "DELETE FROM customers WHERE id BETWEEN 61 AND 64",
        "DELETE FROM customer_stats WHERE id BETWEEN 90 AND 93",
        // and one side deleted and back
        "DELETE FROM customer_stats WHERE id = 70",
        "INSERT INTO customer_stats VALUES (70, 7, NULL, 70)");
    awaitWideEqual(db);
  }

  private static void awaitWideEqual(String db) {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, db, "public", "customer_wide", List.of("id")),
        lakeTable(db, "customer_wide"),
        CATCH_UP,
        () -> connect.failure(db + "-pg", db + "-sink"));
  }
}
