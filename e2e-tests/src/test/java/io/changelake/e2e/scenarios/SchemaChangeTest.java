package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3: while streaming, PostgreSQL adds a column, widens int to bigint and varchar(10) to
 * varchar(40), and drops a column; the table follows each change without a connector restart and
 * every value is right, including values only the wider types can hold.
 */
class SchemaChangeTest extends PipelineTestBase {

  @Test
  void tableFollowsSchemaChangesWithoutRestart() {
    createDatabase("s3");
    pg.execute(
        "s3",
        "CREATE TABLE evolving (id int PRIMARY KEY, qty int, name varchar(10), obsolete text)",
        "INSERT INTO evolving SELECT i, i, 'n' || i, 'old' || i FROM generate_series(1, 50) i");
    startPipeline("s3", "public.evolving", Map.of());
    awaitLakeEqualsDatabase("s3", "evolving");

    pg.execute(
        "s3",
        "ALTER TABLE evolving ADD COLUMN note text",
        "INSERT INTO evolving SELECT i, i, 'n' || i, 'old' || i, 'note ' || i"
            + " FROM generate_series(51, 80) i",
        "UPDATE evolving SET note = 'set later' WHERE id <= 10");
    awaitLakeEqualsDatabase("s3", "evolving");

    pg.execute(
        "s3",
        "ALTER TABLE evolving ALTER COLUMN qty TYPE bigint",
        "INSERT INTO evolving VALUES (81, 5000000000, 'big', 'x', 'beyond int')",
        "UPDATE evolving SET qty = qty * 3000000000 WHERE id BETWEEN 11 AND 20");
    awaitLakeEqualsDatabase("s3", "evolving");

    pg.execute(
        "s3",
        "ALTER TABLE evolving ALTER COLUMN name TYPE varchar(40)",
        "UPDATE evolving SET name = 'a name longer than ten characters ' || id WHERE id <= 30");
    awaitLakeEqualsDatabase("s3", "evolving");

    pg.execute(
        "s3",
        "ALTER TABLE evolving DROP COLUMN obsolete",
        "INSERT INTO evolving (id, qty, name, note) VALUES (82, -1, 'after drop', 'n')",
        "UPDATE evolving SET note = 'after drop' WHERE id BETWEEN 40 AND 45",
        "DELETE FROM evolving WHERE id BETWEEN 46 AND 48");
    awaitLakeEqualsDatabase("s3", "evolving");

    assertThat(connect.cluster().connectorStatus("s3-sink").tasks())
        .as("the sink followed every change without a task failure or restart")
        .allSatisfy(t -> assertThat(t.state()).isEqualTo("RUNNING"));
  }
}
