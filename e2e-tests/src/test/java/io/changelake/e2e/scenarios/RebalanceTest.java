package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.LakeChangelog;
import io.changelake.e2e.compare.VersionedChangelog;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.TaskMetrics;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.InputShape;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo.TaskState;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.apache.paimon.types.RowKind;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 6: while the same keys keep changing, a second Connect worker joins (the sink's
 * partitions move to it) and leaves again (they move back). Per-key order must survive both moves.
 *
 * <p>Every update increments a key's version {@code v} by one and appends it to {@code history}, so
 * the database's final row encodes every update the key went through. The test checks what a
 * reordering or a lost or duplicated update would break:
 *
 * <ul>
 *   <li>the connector status shows sink tasks on the second worker after it joined, and all of them
 *       back on the first after it left; after each move the lake catches up with the versions
 *       written since, so the moved tasks really wrote;
 *   <li>the table ends equal to the database (the final version and the whole history per key);
 *   <li>the table's changelog (lookup producer, every snapshot kept) is monotonic per key: each
 *       {@code +U} carries a higher version than the key's previous one, with {@code history}
 *       extending the previous history, and each {@code -U} is exactly the previous {@code +U} — an
 *       older version winning after a move, even briefly, would show there (the checker: {@code
 *       compare.VersionedChangelog}).
 * </ul>
 *
 * <p>A record the sink receives twice around a move (Connect re-delivers what was not committed; a
 * moved Debezium task re-publishes from its last committed offset) is written again; the sink's
 * tables set Paimon's {@code changelog-producer.row-deduplicate} (ignoring the Kafka offset
 * column), so the copy adds no no-op {@code -U/+U} pair to the changelog, and a pair whose after
 * image repeats the previous state fails the test.
 */
class RebalanceTest extends PipelineTestBase {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(RebalanceTest.class);
  private static final String SINK = "s6-sink";
  private static final int KEYS = 40;
  private static final int TASKS = 3;
  private static final int ROUNDS_PER_PHASE = 60;

  /**
   * A move restarts tasks (Debezium's too, when it moves) before the lake advances again: on a
   * loaded machine that takes minutes, longer than a plain catch-up.
   */
  private static final Duration MOVE_CATCH_UP = Duration.ofSeconds(300);

  @Test
  void workerJoiningAndLeavingKeepsPerKeyOrder() throws Exception {
    createDatabase("s6");
    pg.execute(
        "s6",
        "CREATE TABLE hot (id int PRIMARY KEY, v bigint NOT NULL, history text)",
        "INSERT INTO hot SELECT i, 0, '0' FROM generate_series(1, " + KEYS + ") i");
    Map<String, String> debezium = DebeziumPostgres.config(pg, "s6", "s6", "public.hot");
    debezium.put("topic.creation.default.partitions", "4");
    connect.deploy("s6-pg", debezium, 1);
    Map<String, String> sink =
        ChangelakeConnectors.byTopicAlone(ChangelakeConnectors.sink(warehouse, "s6\\..*", "s6"));
    // three sink tasks next to Debezium's one: Connect balances tasks over the workers, so the
    // joining worker gets two of the four, at least one of them a sink task
    sink.put("tasks.max", String.valueOf(TASKS));
    // keep every snapshot, and so the whole changelog, for the order check
    sink.put("compaction.snapshots.retain.max", "100000");
    connect.deploy(SINK, sink, TASKS);
    awaitLakeEqualsDatabase("s6", "hot");
    String first = workerIds().iterator().next();

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong rounds = new AtomicLong();
    // each phase (before the join, the join, after it, the leave, after it) gets a budget of
    // rounds: enough to span the start of a move, bounded so that a move taking minutes on a
    // loaded machine does not pile up thousands of versions for the lake to catch up with
    AtomicLong allowed = new AtomicLong(ROUNDS_PER_PHASE);
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              while (!stop.get()) {
                if (rounds.get() < allowed.get()) {
                  rounds.incrementAndGet();
                  pg.execute("s6", "UPDATE hot SET v = v + 1, history = history || ',' || (v + 1)");
                }
                try {
                  // pacing a steady trickle of updates (not a wait): order matters, not volume
                  Thread.sleep(250);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
            });
    long beforeJoin;
    long beforeLeave;
    WorkerHandle second;
    try {
      awaitLakeVersionAtLeast(5);
      beforeJoin = rounds.get();
      allowed.set(rounds.get() + ROUNDS_PER_PHASE);
      second = connect.cluster().addWorker();
      Awaitility.await("sink tasks on the second worker " + second.url())
          .atMost(Duration.ofSeconds(120))
          .until(() -> taskWorkers().values().stream().anyMatch(w -> w.endsWith(portOf(second))));
      connect.awaitRunning(SINK, TASKS);
      // the moved task writes: the lake reaches versions written after the join
      allowed.set(rounds.get() + ROUNDS_PER_PHASE);
      awaitLakeVersionAtLeast(rounds.get() + 1);

      beforeLeave = rounds.get();
      allowed.set(rounds.get() + ROUNDS_PER_PHASE);
      connect.cluster().removeWorker(second);
      Awaitility.await("every sink task back on the first worker " + first)
          .atMost(Duration.ofSeconds(120))
          .until(
              () ->
                  taskWorkers().size() == TASKS
                      && taskWorkers().values().stream().allMatch(first::equals));
      connect.awaitRunning(SINK, TASKS);
      connect.awaitRunning("s6-pg", 1);
      allowed.set(rounds.get() + ROUNDS_PER_PHASE);
      awaitLakeVersionAtLeast(rounds.get() + 1);
    } finally {
      stop.set(true);
      writer.get();
    }
    assertThat(beforeLeave).as("updates ran between the moves").isGreaterThan(beforeJoin);
    awaitLakeEqualsDatabase("s6", "hot");
    assertChangelogMonotonicPerKey(rounds.get());
  }

  /**
   * A sink task restarted while its consumer group lags behind its table (here by a change of the
   * connector's config; a rebalance or a restart through the REST API does the same): Connect
   * commits the offsets the task last reported and only then closes it, and the close lands every
   * row it read. The new task is handed the partitions from the group's older offsets. Connect's
   * count of the records it read shows it reading on from where the table stands instead of reading
   * everything again; the table keeps every row and takes the changes after.
   */
  @ParameterizedTest
  @EnumSource(InputShape.class)
  void aRestartedSinkTaskReadsOnFromWhereItsTableStands(InputShape shape) throws Exception {
    String db = "s6r" + shape.ordinal();
    String sinkName = db + "-sink";
    int rows = 6000;
    createDatabase(db);
    pg.execute(db, "CREATE TABLE items (id int PRIMARY KEY, name text)");
    Map<String, String> debezium = DebeziumPostgres.config(pg, db, db, "public.items");
    debezium.put("topic.creation.default.partitions", "2");
    connect.deploy(db + "-pg", debezium, 1);
    Map<String, String> sink =
        ChangelakeConnectors.byTopicAlone(ChangelakeConnectors.sink(warehouse, db + "\\..*", db));
    sink.putAll(shape.connectorSettings(null));
    if (shape.isFlattened()) {
      sink.put("input.format", "flattened");
    }
    // no round lands by time: the rows reach the table when the task closes, and the consumer
    // group never learns an offset
    sink.put("commit.interval.ms", "600000");
    connect.deploy(sinkName, sink, 1);
    try {
      restartReadsOnFromWhereTheTableStands(db, sinkName, sink, rows, shape);
    } finally {
      // the worker-join test counts on the sink's tasks being most of the cluster's
      connect.delete(sinkName);
      connect.delete(db + "-pg");
    }
  }

  private static void restartReadsOnFromWhereTheTableStands(
      String db, String sinkName, Map<String, String> sink, int rows, InputShape shape)
      throws Exception {
    pg.execute(
        db, "INSERT INTO items SELECT i, 'item ' || i FROM generate_series(1, " + rows + ") i");
    Awaitility.await("the sink task reading all " + rows + " inserts")
        .atMost(CATCH_UP)
        .ignoreExceptions()
        .until(() -> TaskMetrics.sinkRecordsRead(sinkName, 0) >= rows);

    Map<String, String> sooner = new HashMap<>(sink);
    sooner.put("commit.interval.ms", "1000");
    connect.configure(sinkName, sooner);
    awaitLakeEqualsDatabase(db, "items");
    // with nothing more to read, the group's offsets still reach the end of every partition: a lag
    // monitor shows the sink caught up (Connect counts an offset the task seeks to as committed)
    String topic = db + ".public.items";
    Awaitility.await("the consumer group of " + sinkName + " committing the end of " + topic)
        .atMost(CATCH_UP)
        .untilAsserted(
            () ->
                assertThat(connect.sinkLag(sinkName, topic))
                    .as("records of each partition after the group's committed offset")
                    .containsOnly(Map.entry(topic + "-0", 0L), Map.entry(topic + "-1", 0L)));
    pg.execute(
        db,
        "UPDATE items SET name = name || ' v2' WHERE id % 10 = 0",
        "INSERT INTO items SELECT i, 'item ' || i FROM generate_series("
            + (rows + 1)
            + ", "
            + (rows + 100)
            + ") i",
        "DELETE FROM items WHERE id % 100 = 1");
    awaitLakeEqualsDatabase(db, "items");
    // the restarted task read the changes since, and of the rows before only what it processed
    // before it read on from the table's offsets (without: all of them again)
    long read = TaskMetrics.sinkRecordsRead(sinkName, 0);
    LOG.info("The restarted sink task read {} records ({})", read, shape);
    assertThat(read)
        .as(
            "records the restarted task read, of %d its table held when it started and ~800 after",
            rows)
        .isLessThan(rows / 2);
  }

  /**
   * Every key's changelog goes up one way ({@link VersionedChangelog}, shown failing on each kind
   * of broken order in {@code harness.VersionedChangelogTest}), with no no-op pair, and ends at the
   * final version.
   */
  private static void assertChangelogMonotonicPerKey(long finalVersion) {
    // the lookup producer writes a commit's changelog when its files are compacted, which the
    // compaction thread may do a round after the merged read already shows the final versions
    List<LakeChangelog.Change> changes = new ArrayList<>();
    Awaitility.await("the changelog of s6.hot reaching version " + finalVersion + " for every key")
        .atMost(MOVE_CATCH_UP)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              changes.clear();
              changes.addAll(
                  LakeChangelog.read(LakeTableReader.fileWarehouse(warehouse), "s6", "hot"));
              Map<Integer, Long> newest = new HashMap<>();
              for (LakeChangelog.Change c : changes) {
                if (c.kind() != RowKind.UPDATE_BEFORE) {
                  newest.put((Integer) c.row().get("id"), (Long) c.row().get("v"));
                }
              }
              return newest.size() == KEYS
                  && newest.values().stream().allMatch(v -> v == finalVersion);
            });
    VersionedChangelog.Check check = VersionedChangelog.check(changes, "id", "v", "history");
    LOG.info("{} changes in the changelog of s6.hot", changes.size());
    assertThat(check.problems()).as("per-key order in the changelog").isEmpty();
    assertThat(check.last()).as("every key in the changelog").hasSize(KEYS);
    assertThat(check.last().values())
        .as("every key's changelog ends at the final version")
        .allSatisfy(row -> assertThat(row.get("v")).isEqualTo(finalVersion));
    assertThat(check.steps().values())
        .as("updates per key in the changelog (several commits, across both moves)")
        .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(3));
  }

  /**
   * Waits until every key's version in the lake is at least {@code version}; on timeout names the
   * keys whose lake version stays below it (with the database's), which is what an older change of
   * a key winning over newer ones looks like.
   */
  private static void awaitLakeVersionAtLeast(long version) {
    Awaitility.await("every key of s6.hot at version " + version + " in the lake")
        .atMost(MOVE_CATCH_UP)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptionsMatching(e -> !(e instanceof ConnectorFailed))
        .untilAsserted(
            () -> {
              String failed = connect.failure("s6-pg", SINK);
              if (failed != null) {
                throw new ConnectorFailed(failed);
              }
              Map<Integer, Long> lake = new TreeMap<>();
              for (Map<String, Object> r :
                  LakeTableReader.read(LakeTableReader.fileWarehouse(warehouse), "s6", "hot")) {
                lake.put((Integer) r.get("id"), (Long) r.get("v"));
              }
              Map<Integer, Long> behind = new TreeMap<>();
              for (int id = 1; id <= KEYS; id++) {
                long v = lake.getOrDefault(id, -1L);
                if (v < version) {
                  behind.put(id, v);
                }
              }
              assertThat(behind)
                  .as(
                      "keys whose version in the lake is below %d, with the version the lake"
                          + " holds (the database is at %d; -1: key missing). A lake holding an"
                          + " older version while newer ones were written means an older change"
                          + " won over newer ones: per-key order is broken",
                      version, databaseVersion())
                  .isEmpty();
            });
  }

  /** The sink or Debezium failed: waiting longer cannot help (not ignored, so it ends the wait). */
  private static final class ConnectorFailed extends IllegalStateException {
    ConnectorFailed(String message) {
      super(message);
    }
  }

  /** The highest version of any key in the database. */
  private static long databaseVersion() {
    return DbTableReader.read(pg, "s6", "public", "hot").rows().stream()
        .mapToLong(r -> ((Number) r.get("v")).longValue())
        .max()
        .orElse(-1);
  }

  /** Task id -> the worker it runs on, as the connector's status reports it. */
  private static Map<Integer, String> taskWorkers() {
    Map<Integer, String> out = new HashMap<>();
    for (TaskState t : connect.cluster().connectorStatus(SINK).tasks()) {
      if ("RUNNING".equals(t.state())) {
        out.put(t.id(), t.workerId());
      }
    }
    return out;
  }

  private static Set<String> workerIds() {
    return taskWorkers().values().stream().collect(Collectors.toSet());
  }

  private static String portOf(WorkerHandle worker) {
    return ":" + worker.url().getPort();
  }
}
