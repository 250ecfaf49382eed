package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.changelake.e2e.changelog.ChangelogReplay;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectWorkerProcess;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.TestBroker;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 5: the Connect worker running Debezium, the sink and the changelog source is killed with
 * SIGKILL three times while 210,000 changes stream through it. Afterwards the Paimon table equals
 * the database row by row, and the changelog topic read with {@code read_committed} replays into
 * the same rows with every event chaining onto the previous state of its key: none lost, none
 * duplicated.
 */
class CrashRecoveryTest {
  private static final String DB = "s5";
  private static final String SINK = "s5-sink";
  private static final String SOURCE = "s5-source";
  private static final String PG = "s5-pg";
  private static final String CHANGELOG_TOPIC = "s5cl.s5.events";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void killingTheWorkerThreeTimesLosesAndDuplicatesNothing() throws Exception {
    try (PostgresServer pg = PostgresServer.start();
        TestBroker broker = TestBroker.start();
        ConnectWorkerProcess worker =
            ConnectWorkerProcess.start(
                dir.resolve("worker"),
                broker.bootstrapServers(),
                "s5-workers",
                Map.of("exactly.once.source.support", "enabled"))) {
      Path warehouse = dir.resolve("lake");
      pg.createDatabase(DB);
      pg.execute(DB, "CREATE TABLE events (id int PRIMARY KEY, v bigint, payload text)");

      Map<String, String> debezium = DebeziumPostgres.config(pg, DB, DB, "public.events");
      debezium.put("topic.creation.default.partitions", "2");
      worker.putConnector(PG, debezium);
      // by the topic alone: after a kill, the task reads each partition on from where the table
      // stands when that is beyond the consumer group's offset
      Map<String, String> sink =
          ChangelakeConnectors.byTopicAlone(
              ChangelakeConnectors.sink(warehouse, "s5\\.public\\..*", DB));
      sink.put("table.changelog-producer", "lookup");
      // lookup changelogs compact on every commit: fewer, larger commits keep up with the load
      sink.put("commit.interval.ms", "5000");
      sink.put("compaction.interval.ms", "10000");
      worker.putConnector(SINK, sink);
      awaitRunning(worker, PG, SINK);

      List<String> load = load();
      long changes = pg.update(DB, load.get(0));
      // the source publishes existing tables: start it once the sink has created this one
      LakeTable lake = new LakeTable(LakeTableReader.fileWarehouse(warehouse), DB, "events");
      Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .ignoreExceptions()
          .untilAsserted(() -> assertThat(lake.read()).isNotEmpty());
      Map<String, String> source = ChangelakeConnectors.source(warehouse, DB + ".events", "s5cl");
      source.put("exactly.once.support", "required");
      source.put("transaction.boundary", "connector");
      worker.putConnector(SOURCE, source);
      awaitRunning(worker, PG, SINK, SOURCE);

      int kills = 0;
      for (int step = 1; step < load.size(); step++) {
        changes += pg.update(DB, load.get(step));
        if (step == 4 || step == 10 || step == 16) {
          // let the worker get busy with the backlog, then pull the plug mid-stream
          Thread.sleep(1500 + 700L * kills);
          worker.kill();
          kills++;
          worker.launch();
        }
      }
      assertThat(changes).isGreaterThanOrEqualTo(200_000);
      assertThat(kills).isEqualTo(3);
      awaitRunning(worker, PG, SINK, SOURCE);

      TableComparison.awaitEqual(
          () -> DbTableReader.read(pg, DB, "public", "events"),
          lake,
          Duration.ofMinutes(10),
          () -> failure(worker));
      // the worker runs with -XX:ThreadPriorityPolicy=1, as the README recommends: the round that
      // just landed did so below the task threads, and the compactor waits there for its next run
      Map<String, Integer> background = worker.threadNiceness("changelake-com");
      assertThat(background.keySet())
          .as("committer and compactor threads")
          .anyMatch(name -> name.startsWith("changelake-comm"))
          .anyMatch(name -> name.startsWith("changelake-comp"));
      assertThat(background).allSatisfy((name, nice) -> assertThat(nice).as(name).isEqualTo(4));
      assertThat(worker.threadNiceness("task-thread-"))
          .isNotEmpty()
          .allSatisfy((name, nice) -> assertThat(nice).as(name).isZero());

      // the changelog catches up with the table's last snapshot
      DbTableReader.Contents db = DbTableReader.read(pg, DB, "public", "events");
      Map<Integer, String> expected = new TreeMap<>();
      for (Map<String, Object> row : db.rows()) {
        expected.put((Integer) row.get("id"), row.get("v") + "|" + row.get("payload"));
      }
      List<ChangelogReplay> last = new ArrayList<>();
      Awaitility.await()
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(3))
          .untilAsserted(
              () -> {
                ChangelogReplay replay =
                    ChangelogReplay.of(
                        ConnectPlatform.readAll(broker.bootstrapServers(), CHANGELOG_TOPIC, true));
                last.add(replay);
                assertThat(failure(worker)).isNull();
                assertThat(replay.violations()).as("changelog chain").isEmpty();
                assertThat(rowsOf(replay)).isEqualTo(expected);
              });
      assertThat(last.get(last.size() - 1).events()).isGreaterThanOrEqualTo(expected.size());
    }
  }

  /**
   * 22 statements, 210,000 changes: inserts, two rounds of updates of every row, deletes, a third
   * partial round of updates, new keys.
   */
  private static List<String> load() {
    List<String> sql = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      sql.add(
          "INSERT INTO events SELECT i, i, 'p' || i FROM generate_series("
              + (i * 10_000 + 1)
              + ", "
              + (i + 1) * 10_000
              + ") i");
    }
    for (int round = 1; round <= 2; round++) {
      for (int i = 0; i < 5; i++) {
        sql.add(
            "UPDATE events SET v = v + "
                + round
                + ", payload = payload || '.u"
                + round
                + "' WHERE id BETWEEN "
                + (i * 10_000 + 1)
                + " AND "
                + (i + 1) * 10_000);
      }
    }
    for (int i = 0; i < 3; i++) {
      sql.add(
          "DELETE FROM events WHERE id % 5 = 0 AND id BETWEEN "
              + (i * 50_000 / 3 + 1)
              + " AND "
              + ((i + 1) * 50_000 / 3));
    }
    sql.add("UPDATE events SET v = v * 2 WHERE id BETWEEN 1 AND 20000");
    for (int i = 0; i < 3; i++) {
      sql.add(
          "INSERT INTO events SELECT i, -i, 'n' || i FROM generate_series("
              + (100_000 + i * 10_000 + 1)
              + ", "
              + (100_000 + (i + 1) * 10_000)
              + ") i");
    }
    return sql;
  }

  private static Map<Integer, String> rowsOf(ChangelogReplay replay) {
    Map<Integer, String> rows = new TreeMap<>();
    for (JsonNode after : replay.state().values()) {
      rows.put(
          after.path("id").asInt(),
          after.path("v").asLong() + "|" + after.path("payload").asText());
    }
    return rows;
  }

  private static void awaitRunning(ConnectWorkerProcess worker, String... connectors) {
    try {
      Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .until(
              () ->
                  java.util.Arrays.stream(connectors).allMatch(c -> worker.running(c, 1))
                      || failure(worker) != null);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      StringBuilder s = new StringBuilder("connectors not running in 120 s:\n");
      for (String c : connectors) {
        s.append(c).append(": ").append(worker.status(c)).append('\n');
      }
      throw new AssertionError(s + "worker log " + worker.logs(), e);
    }
    assertThat(failure(worker)).as("connector failure").isNull();
  }

  private static String failure(ConnectWorkerProcess worker) {
    StringBuilder s = new StringBuilder();
    for (String name : List.of(PG, SINK, SOURCE)) {
      JsonNode status = worker.status(name);
      if (status == null) {
        continue;
      }
      if ("FAILED".equals(status.path("connector").path("state").asText())) {
        s.append(name).append(" FAILED: ").append(status.path("connector").path("trace").asText());
      }
      for (JsonNode t : status.path("tasks")) {
        if ("FAILED".equals(t.path("state").asText())) {
          s.append(name)
              .append(" task ")
              .append(t.path("id").asInt())
              .append(" FAILED: ")
              .append(t.path("trace").asText())
              .append('\n');
        }
      }
    }
    return s.isEmpty() ? null : s.toString();
  }
}
