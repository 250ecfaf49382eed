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
 * contributes its own columns, and the wide table equals the database's full outer join of the two,
 * also while both sides keep changing in any order.
 */
class WideTableTest extends PipelineTestBase {

  @Test
  void twoTablesFillOneWideTable() {
    createDatabase("s4");
    pg.execute(
        "s4",
        "CREATE TABLE customers (id int PRIMARY KEY, name text, email varchar(80))",
        "CREATE TABLE customer_stats (id int PRIMARY KEY, orders int, last_order date,"
            + " revenue numeric(12,2))",
        "INSERT INTO customers SELECT i, 'name ' || i, 'c' || i || '@example.com'"
            + " FROM generate_series(1, 100) i",
        // some customers have no stats yet, some stats arrive before their customer
        "INSERT INTO customer_stats SELECT i, i % 13, date '2024-01-01' + i, i * 3.5"
            + " FROM generate_series(50, 150) i",
        "CREATE VIEW customer_wide AS SELECT COALESCE(c.id, s.id) AS id, c.name, c.email,"
            + " s.orders, s.last_order, s.revenue"
            + " FROM customers c FULL OUTER JOIN customer_stats s ON c.id = s.id");

    connect.deploy(
        "s4-pg",
        DebeziumPostgres.config(pg, "s4", "s4", "public.customers,public.customer_stats"),
        1);
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, "s4\\..*", "s4");
    sink.put("route.regex.rules", "s4\\.public\\.(customers|customer_stats)=>customer_wide");
    sink.put("table.customer_wide.merge-engine", "partial-update");
    // a delete in one of the two source tables must not remove the other's columns
    sink.put("table.customer_wide.delete-policy", "ignore");
    connect.deploy("s4-sink", sink, 1);
    awaitWideEqual();

    pg.execute(
        "s4",
        "UPDATE customers SET email = 'new' || id || '@example.com' WHERE id % 4 = 0",
        "UPDATE customer_stats SET orders = orders + 1, revenue = revenue + 10 WHERE id % 3 = 0",
        "INSERT INTO customers SELECT i, 'late ' || i, NULL FROM generate_series(101, 120) i",
        "INSERT INTO customer_stats SELECT i, 1, date '2025-01-01', 1"
            + " FROM generate_series(20, 30) i",
        "UPDATE customers SET name = name || ' (vip)' WHERE id BETWEEN 55 AND 60");
    awaitWideEqual();
  }

  private static void awaitWideEqual() {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, "s4", "public", "customer_wide", List.of("id")),
        lakeTable("s4", "customer_wide"),
        CATCH_UP,
        () -> connect.failure("s4-pg", "s4-sink"));
  }
}
