package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Source tables without a primary key (REPLICA IDENTITY FULL, so updates and deletes carry the
 * whole old row), next to a keyed table in the same sink: the keyless table becomes an append-only
 * table of its changes (the default), a keyless table with a configured key mirrors its source, and
 * neither stops the keyed table.
 */
class KeylessTablesTest extends PipelineTestBase {

  @Test
  void keylessTablesBecomeChangeTablesOrKeyedMirrorsWithoutStoppingTheOthers() {
    String db = "keyless";
    createDatabase(db);
    List<String> setup = new ArrayList<>();
    for (String table : List.of("events", "items", "audit")) {
      String key = table.equals("items") ? " PRIMARY KEY" : "";
      setup.add("CREATE TABLE " + table + " (id int NOT NULL" + key + ", note text)");
      setup.add("ALTER TABLE " + table + " REPLICA IDENTITY FULL");
      setup.add("INSERT INTO " + table + " SELECT i, 'note ' || i FROM generate_series(1, 5) i");
    }
    pg.execute(db, setup.toArray(String[]::new));
    startPipeline(
        db,
        "public.events,public.items,public.audit",
        // audit has no key in PostgreSQL, but its id identifies a row
        Map.of("table.audit.primary-key-fields", "id"));

    for (String table : List.of("events", "items", "audit")) {
      pg.execute(
          db,
          "UPDATE " + table + " SET note = 'changed' WHERE id <= 2",
          "DELETE FROM " + table + " WHERE id = 5",
          "INSERT INTO " + table + " VALUES (6, 'six')");
    }

    awaitLakeEqualsDatabase(db, "items");
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, db, "public", "audit", List.of("id")),
        lakeTable(db, "audit"),
        CATCH_UP,
        () -> connect.failure(db + "-pg", db + "-sink"));
    // the change table: every change one row, its operation and source position alongside
    List<String> expected =
        List.of(
            "r 1 note 1",
            "r 2 note 2",
            "r 3 note 3",
            "r 4 note 4",
            "r 5 note 5",
            "u 1 changed",
            "u 2 changed",
            "d 5 note 5",
            "c 6 six");
    Awaitility.await()
        .atMost(CATCH_UP)
        .untilAsserted(
            () -> {
              assertThat(connect.failure(db + "-pg", db + "-sink")).isNull();
              assertThat(changes(db, "events")).containsExactlyInAnyOrderElementsOf(expected);
            });
    assertThat(lakeTable(db, "events").read())
        .allSatisfy(row -> assertThat((Long) row.get("_changelake_source_position")).isPositive());
  }

  private static List<String> changes(String db, String table) {
    List<String> changes = new ArrayList<>();
    try {
      for (Map<String, Object> row : lakeTable(db, table).read()) {
        changes.add(row.get("_changelake_op") + " " + row.get("id") + " " + row.get("note"));
      }
    } catch (RuntimeException e) {
      // the table is created with the first record
      return List.of(e.getMessage());
    }
    return changes;
  }
}
