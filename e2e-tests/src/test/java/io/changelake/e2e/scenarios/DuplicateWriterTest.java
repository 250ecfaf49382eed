package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.changelake.e2e.changelog.ChangelogReplay;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectWorkerProcess;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers of one table on real Connect: two live writers under one commit user, and the changelog a
 * {@code full-compaction} table gives its readers.
 *
 * <p>Two Connect clusters (the in-process one and a worker JVM of another group) on one warehouse
 * run a sink connector of the same name: both task 0s commit as {@code
 * changelake-sink-<name>-task-0}, each on the partitions the shared consumer group gave it. Paimon
 * would drop the commits of one as already made; the commit fence fails the older task instead,
 * with a message naming the commit user and the cause, and the surviving task, which gets every
 * partition once the failed one leaves the group, brings the table to equal the database: nothing
 * the failed task accepted is lost. The two JVMs commit through the JDBC catalog's lock (local
 * rename is atomic only within one JVM).
 *
 * <p>A {@code table.changelog-producer=full-compaction} table has no changelog until the
 * compactor's full compaction: the Changelake source, started on the empty table, publishes
 * inserts, updates (twice per key between rounds) and deletes as they compact, and the topic
 * replayed reproduces the table with every event chaining onto its key's previous state.
 */
class DuplicateWriterTest extends PipelineTestBase {
  @TempDir static Path workers;

  @Test
  void twoClustersRunningOneSinkUnderOneCommitUserFailTheOlderTaskAndLoseNothing()
      throws Exception {
    String db = "zb";
    String sink = db + "-sink";
    createDatabase(db);
    pg.createDatabase(db + "_catalog");
    pg.execute(
        db,
        "CREATE TABLE items (id int PRIMARY KEY, name text, v int)",
        "INSERT INTO items SELECT i, 'item ' || i, i FROM generate_series(1, 200) i");
    Map<String, String> source = new HashMap<>(DebeziumPostgres.config(pg, db, db, "public.items"));
    source.put("topic.creation.default.partitions", "4");
    connect.deploy(db + "-pg", source, 1);
    Map<String, String> config =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, db + "\\..*", db));
    config.put("paimon.metastore", "jdbc");
    config.put("paimon.uri", pg.jdbcUrl(db + "_catalog"));
    config.put("paimon.jdbc.user", PostgresServer.USER);
    config.put("paimon.jdbc.password", PostgresServer.PASSWORD);
    config.put("paimon.lock.enabled", "true");
    config.put("paimon.lock-check-max-sleep", "1s");
    connect.deploy(sink, config, 1);
    awaitLakeEqualsDatabase(db, "items");

    try (ConnectWorkerProcess second =
        ConnectWorkerProcess.start(
            workers.resolve("second"), connect.bootstrapServers(), "zb-second", Map.of())) {
      second.putConnector(sink, config);
      Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> second.running(sink, 1));

      // both tasks take rows, a round every poll, until the first one is fenced
      AtomicInteger round = new AtomicInteger();
      Awaitility.await("the older task fenced while both clusters take rows")
          .atMost(Duration.ofSeconds(180))
          .pollInterval(Duration.ofMillis(300))
          .failFast(
              "the newer task failed instead of the older one",
              () -> failureOf(second, sink) != null)
          .until(
              () -> {
                if (connect.failure(sink) != null) {
                  return true;
                }
                int r = round.incrementAndGet();
                pg.execute(
                    db,
                    "UPDATE items SET v = v + 1, name = 'round " + r + "' WHERE id % 7 = " + r % 7,
                    "INSERT INTO items VALUES (" + (1000 + r) + ", 'new', " + r + ")",
                    "DELETE FROM items WHERE id = " + (3 * r));
                return false;
              });
      assertThat(connect.failure(sink))
          .contains("commit user 'changelake-sink-" + sink + "-task-0'")
          .contains("it started later: this writer stops so the newer one wins")
          .contains("two Connect clusters write to one warehouse");

      // the survivor takes over every partition and goes on
      pg.execute(
          db,
          "UPDATE items SET v = v * 10 WHERE id % 2 = 0",
          "DELETE FROM items WHERE id % 11 = 0",
          "INSERT INTO items SELECT i, 'late', i FROM generate_series(5000, 5050) i");
      TableComparison.awaitEqual(
          () -> DbTableReader.read(pg, db, "public", "items"),
          lakeTable(db, "items"),
          CATCH_UP,
          () -> failureOf(second, sink));
      assertThat(second.running(sink, 1)).as(second.status(sink).toString()).isTrue();
      assertThat(round.get()).isPositive();
      second.stop();
    }
    connect.delete(sink);
    connect.delete(db + "-pg");
  }

  @Test
  void aFullCompactionTableGivesReadersItsWholeChangelog() throws Exception {
    String db = "fc";
    createDatabase(db);
    pg.execute(
        db,
        "CREATE TABLE items (id int PRIMARY KEY, name text, v int)",
        "INSERT INTO items SELECT i, 'item ' || i, i FROM generate_series(1, 50) i");
    Map<String, String> sinkOverrides = new HashMap<>();
    sinkOverrides.put("table.changelog-producer", "full-compaction");
    sinkOverrides.put("compaction.interval.ms", "3000");
    startPipeline(db, "public.items", sinkOverrides);
    awaitLakeEqualsDatabase(db, "items");

    String topic = "fccl." + db + ".items";
    connect.deploy(
        db + "-source", ChangelakeConnectors.source(warehouse, db + ".items", "fccl"), 1);
    // updated twice between compactions, deleted, inserted, re-inserted after a delete
    pg.execute(
        db,
        "UPDATE items SET v = v + 100 WHERE id % 2 = 0",
        "UPDATE items SET name = 'twice' WHERE id % 4 = 0",
        "DELETE FROM items WHERE id % 5 = 0",
        "INSERT INTO items SELECT i, 'new ' || i, i FROM generate_series(51, 80) i",
        "INSERT INTO items VALUES (5, 'back', 5)");
    awaitLakeEqualsDatabase(db, "items");
    pg.execute(db, "UPDATE items SET v = -v WHERE id > 70", "DELETE FROM items WHERE id < 10");
    awaitLakeEqualsDatabase(db, "items");

    Map<Integer, String> expected = new TreeMap<>();
    for (Map<String, Object> row : DbTableReader.read(pg, db, "public", "items").rows()) {
      expected.put((Integer) row.get("id"), row.get("name") + "|" + row.get("v"));
    }
    Awaitility.await()
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              ChangelogReplay replay = ChangelogReplay.of(connect.readAll(topic, false));
              assertThat(connect.failure(db + "-pg", db + "-sink", db + "-source")).isNull();
              assertThat(replay.violations()).as("changelog chain").isEmpty();
              assertThat(rowsOf(replay)).isEqualTo(expected);
            });
    List.of(db + "-source", db + "-sink", db + "-pg").forEach(connect::delete);
  }

  private static Map<Integer, String> rowsOf(ChangelogReplay replay) {
    Map<Integer, String> rows = new TreeMap<>();
    for (JsonNode after : replay.state().values()) {
      rows.put(
          after.path("id").asInt(), after.path("name").asText() + "|" + after.path("v").asInt());
    }
    return rows;
  }

  private static String failureOf(ConnectWorkerProcess worker, String connector) {
    JsonNode status = worker.status(connector);
    if (status == null) {
      return null;
    }
    for (JsonNode t : status.path("tasks")) {
      if ("FAILED".equals(t.path("state").asText())) {
        return connector + " on the second cluster FAILED: " + t.path("trace").asText();
      }
    }
    return null;
  }
}
