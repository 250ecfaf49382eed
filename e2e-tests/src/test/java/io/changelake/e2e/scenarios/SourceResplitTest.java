package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.changelake.e2e.changelog.ChangelogReplay;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The changelog source re-split while changes flow: PostgreSQL -> Debezium -> sink -> Paimon (4
 * buckets) -> Changelake source (exactly-once) -> topics read with {@code read_committed}. The
 * source goes from one task to three (its one table's buckets spread over them), a second table
 * appears in the lake (the split changes again) and the source goes back to one task. Each topic,
 * replayed, chains without a repeated, lost or resurrected change and ends equal to its table.
 */
class SourceResplitTest {
  private static final Duration CATCH_UP = Duration.ofSeconds(180);
  private static final String DB = "rs";
  private static final String SOURCE = DB + "-source";

  static PostgresServer pg;
  static ConnectPlatform connect;

  @TempDir static Path warehouse;

  @BeforeAll
  static void startPlatform() {
    pg = PostgresServer.start();
    Properties broker = new Properties();
    // one broker: the transaction state log cannot have the default 3 replicas
    broker.put("transaction.state.log.replication.factor", "1");
    broker.put("transaction.state.log.min.isr", "1");
    connect =
        PluginWorkers.start(
            "e2e-resplit", 1, Map.of("exactly.once.source.support", "enabled"), broker);
  }

  @AfterAll
  static void stopPlatform() {
    if (connect != null) {
      connect.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void changingTasksMaxAndAddingATableNeitherLosesRepeatsNorResurrectsAChange() {
    pg.createDatabase(DB);
    pg.execute(
        DB,
        "CREATE TABLE t1 (id int PRIMARY KEY, v int, note text)",
        "CREATE TABLE t2 (id int PRIMARY KEY, v int, note text)",
        "INSERT INTO t1 SELECT i, i, 'first' FROM generate_series(1, 40) i");
    connect.deploy(DB + "-pg", DebeziumPostgres.config(pg, DB, DB, "public\\.t[12]"), 1);
    Map<String, String> sink =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, DB + "\\.public\\..*", DB));
    sink.put("table.buckets", "4");
    connect.deploy(DB + "-sink", sink, 1);
    connect.deploy(SOURCE, source(1), 1);
    awaitTopicEqualsDatabase("t1");

    churn("t1", 1);
    // 1 table, 3 tasks: the table's four buckets are spread over three tasks
    connect.cluster().configureConnector(SOURCE, source(3));
    churn("t1", 2);
    connect.awaitRunning(SOURCE, 3);
    churn("t1", 3);

    // a second table reaches the lake: the connector discovers it and splits the tasks again
    pg.execute(DB, "INSERT INTO t2 SELECT i, i, 'first' FROM generate_series(1, 20) i");
    churn("t1", 4);
    churn("t2", 4);
    awaitLakeEqualsDatabase("t2");
    churn("t1", 5);
    churn("t2", 5);

    // and back to one task reading everything
    connect.cluster().configureConnector(SOURCE, source(1));
    churn("t1", 6);
    churn("t2", 6);
    connect.awaitRunning(SOURCE, 1);
    churn("t1", 7);
    churn("t2", 7);

    awaitLakeEqualsDatabase("t1");
    awaitLakeEqualsDatabase("t2");
    awaitTopicEqualsDatabase("t1");
    awaitTopicEqualsDatabase("t2");
    for (String name : new String[] {"-pg", "-sink", "-source"}) {
      assertThat(connect.cluster().connectorStatus(DB + name).tasks())
          .as(DB + name + " ran through without a task failure")
          .allSatisfy(t -> assertThat(t.state()).isEqualTo("RUNNING"));
    }
  }

  /** Exactly-once source over both tables, four partitions per topic. */
  private static Map<String, String> source(int tasks) {
    Map<String, String> c =
        new HashMap<>(ChangelakeConnectors.source(warehouse, DB + ".t1", "lake"));
    c.remove("tables");
    c.put("tables.regex", DB + "\\.t[12]");
    c.put("tables.discovery.interval.ms", "1000");
    c.put("tasks.max", Integer.toString(tasks));
    c.put("exactly.once.support", "required");
    c.put("transaction.boundary", "connector");
    c.put("topic.creation.default.partitions", "4");
    return c;
  }

  /** Updates a quarter of the rows, deletes one, re-inserts the one deleted before, adds one. */
  private static void churn(String table, int round) {
    pg.execute(
        DB,
        "UPDATE "
            + table
            + " SET v = v + 100, note = 'round "
            + round
            + "' WHERE id % 4 = "
            + round % 4,
        "DELETE FROM " + table + " WHERE id = " + round * 3,
        "INSERT INTO "
            + table
            + " VALUES ("
            + (round - 1) * 3
            + ", -"
            + round
            + ", 'back') ON CONFLICT (id) DO NOTHING",
        "INSERT INTO " + table + " VALUES (" + (1000 + round) + ", " + round + ", 'new')");
  }

  private static void awaitLakeEqualsDatabase(String table) {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, DB, "public", table),
        new TableComparison.LakeTable(LakeTableReader.fileWarehouse(warehouse), DB, table),
        CATCH_UP,
        () -> connect.failure(DB + "-pg", DB + "-sink"));
  }

  /** Waits until the committed changelog of {@code table}, replayed, equals the database. */
  private static void awaitTopicEqualsDatabase(String table) {
    String topic = "lake." + DB + "." + table;
    Awaitility.await()
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofSeconds(2))
        // the second table's topic appears only once the source has discovered the table
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(connect.failure(SOURCE)).isNull();
              ChangelogReplay replay = ChangelogReplay.of(connect.readAll(topic, true));
              assertThat(replay.violations()).as("changelog chain of " + topic).isEmpty();
              assertThat(rowsOf(replay)).as(topic + " replayed").isEqualTo(database(table));
            });
  }

  private static Map<Integer, String> rowsOf(ChangelogReplay replay) {
    Map<Integer, String> rows = new TreeMap<>();
    for (JsonNode after : replay.state().values()) {
      rows.put(
          after.path("id").asInt(), after.path("v").asInt() + "|" + after.path("note").asText());
    }
    return rows;
  }

  private static Map<Integer, String> database(String table) {
    Map<Integer, String> rows = new TreeMap<>();
    try (Connection c = pg.connect(DB);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, v, note FROM " + table)) {
      while (rs.next()) {
        rows.put(rs.getInt(1), rs.getInt(2) + "|" + rs.getString(3));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return rows;
  }
}
