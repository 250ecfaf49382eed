package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.compact.CompactionHeartbeat;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.metrics.SinkMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The compactor thread of a task on real tables: failures, ownership, stand-ins for an owner. */
class CompactionSchedulerTest {
  private static final String ORDERS_COMPACTOR = "changelake-sink-orders-compactor";

  @TempDir Path tmp;
  private Catalog catalog;
  private final List<CompactionScheduler> schedulers = new ArrayList<>();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  @BeforeEach
  void openCatalog() {
    catalog = TestTables.localCatalog(tmp.resolve("warehouse"));
  }

  @AfterEach
  void close() throws Exception {
    schedulers.forEach(CompactionScheduler::close);
    catalog.close();
  }

  private ChangelakeSinkConfig config() {
    return new ChangelakeSinkConfig(
        Map.of(
            "name", "orders",
            "paimon.warehouse", tmp.resolve("warehouse").toUri().toString(),
            "route.database", "lake",
            "compaction.interval.ms", "1000",
            // two level-0 files are below Paimon's trigger for a normal compaction
            "compaction.full", "true"));
  }

  /** A scheduler of connector {@code orders} whose compaction of {@code broken} throws. */
  private CompactionScheduler scheduler(int taskId, int taskCount, String broken, Error error) {
    CompactionScheduler scheduler =
        new CompactionScheduler(
            config(),
            catalog,
            taskId,
            taskCount,
            new CommitUsers("orders"),
            metrics,
            (compactor, table, full) -> {
              runs.computeIfAbsent(table.name(), t -> new AtomicInteger()).incrementAndGet();
              if (table.name().equals(broken) && !fixed) {
                throw error;
              }
              var result = compactor.compact(table, full);
              compactor.maintain(table);
              return result;
            });
    schedulers.add(scheduler);
    return scheduler;
  }

  private final SinkMetrics metrics = new SinkMetrics(null);
  private volatile boolean fixed;

  /** A table with two commits (two level-0 files) by {@code user}. */
  private Identifier writtenTable(String name, String user) {
    Identifier id = Identifier.create("lake", name);
    LakeTables.createOrOpen(catalog, TestTables.spec("lake", name, 1));
    try (WriterPool pool =
        new WriterPool(
            catalog,
            new io.changelake.lsm.write.WriterSettings(
                user, tmp.resolve("spill-" + name), 8 << 20, Duration.ofHours(1)))) {
      TableWriter writer = pool.writer(id);
      SourcePartition p = new SourcePartition("topic", 0);
      writer.write(insert(1, "a", 1L));
      writer.commit(Map.of(p, 1L));
      writer.write(insert(2, "b", 2L));
      writer.commit(Map.of(p, 2L));
    }
    return id;
  }

  private boolean compactedBy(Identifier id, String user) throws Exception {
    FileStoreTable table = (FileStoreTable) catalog.getTable(id);
    java.util.Iterator<Snapshot> snapshots = table.snapshotManager().snapshots();
    while (snapshots.hasNext()) {
      Snapshot snapshot = snapshots.next();
      if (snapshot.commitUser().equals(user)
          && snapshot.commitKind() == Snapshot.CommitKind.COMPACT) {
        return true;
      }
    }
    return false;
  }

  private int runs(String table) {
    AtomicInteger count = runs.get(table);
    return count == null ? 0 : count.get();
  }

  @Test
  void aTableThatThrowsAnErrorEveryRoundNeitherEndsTheRoundNorStopsLaterRounds() throws Exception {
    Identifier first = writtenTable("a_first", "changelake-sink-orders-task-0");
    writtenTable("b_broken", "changelake-sink-orders-task-0");
    Identifier last = writtenTable("c_last", "changelake-sink-orders-task-0");
    CompactionScheduler scheduler =
        scheduler(0, 1, "b_broken", new StackOverflowError("simulated"));

    scheduler.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> runs("c_last") >= 2);

    assertThat(compactedBy(first, ORDERS_COMPACTOR)).isTrue();
    assertThat(compactedBy(last, ORDERS_COMPACTOR)).isTrue();
    assertThat(metrics.compaction("lake.b_broken").failingRounds()).isGreaterThanOrEqualTo(2);
    assertThat(metrics.compaction("lake.c_last").failingRounds()).isZero();
    assertThat(metrics.compaction("lake.c_last").ageMs()).isBetween(0L, 60_000L);

    fixed = true;
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> metrics.compaction("lake.b_broken").failingRounds() == 0);
    assertThat(metrics.compaction("lake.b_broken").failuresTotal()).isGreaterThanOrEqualTo(2);
    assertThat(compactedBy(Identifier.create("lake", "b_broken"), ORDERS_COMPACTOR)).isTrue();
  }

  @Test
  void connectorOrdersLeavesTheTablesOfConnectorOrdersEuAlone() throws Exception {
    Identifier theirs = writtenTable("eu_orders", "changelake-sink-orders-eu-task-0");
    Identifier ours = writtenTable("orders", "changelake-sink-orders-task-0");

    scheduler(0, 1, null, null).runRound();

    assertThat(compactedBy(ours, ORDERS_COMPACTOR)).isTrue();
    assertThat(runs("eu_orders")).isZero();
    assertThat(compactedBy(theirs, ORDERS_COMPACTOR)).isFalse();
  }

  @Test
  void aTableWhoseOwnerStoppedCompactingItIsCompactedByTheNextTask() throws Exception {
    String name = nameOwnedBy(0, 2);
    Identifier id = writtenTable(name, "changelake-sink-orders-task-0");
    FileStoreTable table = (FileStoreTable) catalog.getTable(id);
    CompactionScheduler task1 = scheduler(1, 2, null, null);

    // the owner compacted a moment ago: not task 1's business
    CompactionHeartbeat.record(table, "owner", System.currentTimeMillis());
    task1.runRound();
    assertThat(compactedBy(id, ORDERS_COMPACTOR)).isFalse();

    // the owner's last success is an hour old (its task FAILED): task 1 stands in
    CompactionHeartbeat.record(table, "owner", System.currentTimeMillis() - 3_600_000);
    assertThat(metrics.compaction(id.getFullName()).ageMs()).isLessThan(60_000L);
    task1.runRound();

    assertThat(compactedBy(id, ORDERS_COMPACTOR)).isTrue();
    assertThat(CompactionHeartbeat.read(table).orElseThrow().compactor()).contains("task 1");
  }

  @ParameterizedTest
  @CsvSource({
    // age in takeover periods, task count, stand-in (offset from the owner; 0 = none)
    "0, 3, 0",
    "1, 3, 1",
    "2, 3, 2",
    "3, 3, 1",
    "1, 2, 1",
    "5, 1, 0",
  })
  void standInsRotateThroughTheOtherTasksOnePeriodAtATime(int periods, int tasks, int offset) {
    Identifier id = Identifier.create("lake", nameOwnedBy(0, tasks));
    long period = 3000;
    for (int task = 0; task < tasks; task++) {
      boolean expected = offset != 0 && task == offset;
      assertThat(CompactionScheduler.standsIn(id, task, tasks, periods * period + 10, period))
          .as("task %d of %d after %d periods", task, tasks, periods)
          .isEqualTo(expected);
    }
  }

  private static String nameOwnedBy(int task, int tasks) {
    for (int i = 0; ; i++) {
      if (CompactionScheduler.owns(Identifier.create("lake", "t" + i), task, tasks)) {
        return "t" + i;
      }
    }
  }
}
