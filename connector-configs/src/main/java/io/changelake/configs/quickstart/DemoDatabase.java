package io.changelake.configs.quickstart;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The quickstart's demo table and the changes made to it: an insert snapshot, an update, a delete
 * and a schema change. The recorded events in the repository are the same script.
 */
final class DemoDatabase {
  static final String DATABASE = "shop";
  static final String TOPIC_PREFIX = "quickstart";
  static final String DEBEZIUM_TOPIC = TOPIC_PREFIX + ".public.customers";

  static final List<String> CREATE =
      List.of(
          "CREATE TABLE customers (id INT PRIMARY KEY, name TEXT NOT NULL, email TEXT, tier TEXT)",
          // full before images for updates and deletes
          "ALTER TABLE customers REPLICA IDENTITY FULL",
          "INSERT INTO customers VALUES"
              + " (1, 'Ada Lovelace', 'ada@example.com', 'gold'),"
              + " (2, 'Grace Hopper', 'grace@example.com', 'silver'),"
              + " (3, 'Alan Turing', 'alan@example.com', 'bronze')");

  /** A change made while the pipeline runs. */
  record Change(String description, String sql) {}

  static final List<Change> CHANGES =
      List.of(
          new Change(
              "update: Ada moves to tier platinum",
              "UPDATE customers SET tier = 'platinum' WHERE id = 1"),
          new Change("delete: Alan leaves", "DELETE FROM customers WHERE id = 3"),
          new Change(
              "schema change: ALTER TABLE customers ADD COLUMN city TEXT",
              "ALTER TABLE customers ADD COLUMN city TEXT"),
          new Change(
              "insert with the new column: Edsger from Nuenen",
              "INSERT INTO customers VALUES (4, 'Edsger Dijkstra', 'edsger@example.com', 'gold', 'Nuenen')"),
          new Change(
              "update of the new column: Grace in Arlington",
              "UPDATE customers SET city = 'Arlington' WHERE id = 2"));

  private DemoDatabase() {}

  /** True once the table holds the initial three rows. */
  static boolean initialLoaded(List<Map<String, Object>> rows) {
    return ids(rows).containsAll(Set.of("1", "2", "3"));
  }

  /** True once every change has arrived. */
  static boolean changesApplied(List<Map<String, Object>> rows) {
    return ids(rows).equals(Set.of("1", "2", "4"))
        && rows.stream()
            .anyMatch(r -> "2".equals(r.get("id")) && Objects.equals("Arlington", r.get("city")))
        && rows.stream()
            .anyMatch(r -> "1".equals(r.get("id")) && Objects.equals("platinum", r.get("tier")));
  }

  private static Set<String> ids(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> String.valueOf(r.get("id"))).collect(Collectors.toSet());
  }
}
