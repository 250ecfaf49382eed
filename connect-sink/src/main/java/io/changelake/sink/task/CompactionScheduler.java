package io.changelake.sink.task;

import io.changelake.lsm.compact.CompactionHeartbeat;
import io.changelake.lsm.compact.CompactionResult;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.metrics.CompactionMetrics;
import io.changelake.sink.metrics.SinkMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts the connector's tables in the background. Each table is owned by exactly one task
 * ({@code hash(table) mod tasks}), so normally one compactor per table exists and it never
 * conflicts with the write-only ingest writers. A table belongs to the connector when its latest
 * snapshot was committed by one of the connector's own commit users (matched exactly).
 *
 * <p>A round survives anything one table throws, {@link Error}s included: the failure is counted
 * for that table ({@link CompactionMetrics}), logged once per streak of failed rounds, and the
 * round goes on with the next table. An owner that stops compacting a table (a FAILED task keeps
 * its ownership, Connect does not move it) is replaced: every successful round writes the table's
 * {@link CompactionHeartbeat}, and once it is older than {@link #TAKEOVER_AFTER_INTERVALS}
 * compaction intervals (and at least {@link #TAKEOVER_AT_THE_EARLIEST}) the next task after the
 * owner compacts the table too, then the one after it, and so on while it stays stale. Two
 * compactors at once cost a conflict, never data: ingest writers are write-only and a compaction
 * that lost a conflict is simply not committed.
 */
final class CompactionScheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionScheduler.class);

  /** A table not compacted for this many intervals is compacted by another task. */
  static final int TAKEOVER_AFTER_INTERVALS = 3;

  /**
   * ... but never sooner than this: a round over a large table, or any round on a loaded machine,
   * can take minutes, and a stand-in working next to a live owner only makes both fail.
   */
  static final Duration TAKEOVER_AT_THE_EARLIEST = Duration.ofMinutes(10);

  /** What is done to one table in a round; a seam for tests. Returns the compaction's outcome. */
  interface TableCompaction {
    CompactionResult run(Compactor compactor, FileStoreTable table, boolean full) throws Exception;
  }

  private final Catalog catalog;
  private final String database;
  private final int taskId;
  private final int taskCount;
  private final CommitUsers users;
  private final Duration interval;
  private final boolean full;
  private final CompactionSettings settings;
  private final SinkMetrics metrics;
  private final TableCompaction compaction;
  private final ScheduledExecutorService executor;
  // one for the task's life: it remembers when it last cleaned each table's orphan files
  private final Compactor compactor;
  // tables seen without a heartbeat, and since when: the owner may not have had its first round
  private final Map<Identifier, Long> withoutHeartbeatSince = new HashMap<>();
  private final Map<Identifier, Boolean> takenOver = new HashMap<>();
  private boolean listingFailed;

  /** What a task does to each table it owns: compacts it, then expires and cleans it. */
  static final TableCompaction COMPACT_AND_MAINTAIN =
      (compactor, table, full) -> {
        CompactionResult result = compactor.compact(table, full);
        compactor.maintain(table);
        return result;
      };

  CompactionScheduler(
      ChangelakeSinkConfig config,
      Catalog catalog,
      int taskId,
      int taskCount,
      CommitUsers users,
      SinkMetrics metrics,
      TableCompaction compaction) {
    this.catalog = catalog;
    this.database = config.database();
    this.taskId = taskId;
    this.taskCount = taskCount;
    this.users = users;
    this.interval = config.compactionInterval();
    this.full = config.fullCompaction();
    this.metrics = metrics;
    this.compaction = compaction;
    this.settings =
        new CompactionSettings(
            users.compactor(),
            config.snapshotsRetainMin(),
            Math.max(config.snapshotsRetainMin(), config.snapshotsRetainMax()),
            config.snapshotTimeRetained(),
            config.orphanFilesOlderThan());
    this.compactor = new Compactor(settings);
    this.executor =
        interval.isZero()
            ? null
            : Executors.newSingleThreadScheduledExecutor(
                BackgroundThreads.factory("changelake-compactor-" + taskId, false));
  }

  /** True when this task is the one compacting {@code table}. */
  static boolean owns(Identifier table, int taskId, int taskCount) {
    return owner(table, taskCount) == taskId;
  }

  private static int owner(Identifier table, int taskCount) {
    return Math.floorMod(table.getFullName().hashCode(), taskCount);
  }

  /**
   * True when {@code taskId} stands in for the owner of a table last compacted {@code ageMs} ago:
   * after {@code takeoverAfterMs} the task after the owner, after twice that the next one, and so
   * on through the other tasks, so a stale table gets one stand-in at a time.
   */
  static boolean standsIn(
      Identifier table, int taskId, int taskCount, long ageMs, long takeoverAfterMs) {
    if (taskCount < 2 || ageMs < takeoverAfterMs || owns(table, taskId, taskCount)) {
      return false;
    }
    long periods = ageMs / takeoverAfterMs;
    long offset = 1 + (periods - 1) % (taskCount - 1);
    return Math.floorMod(owner(table, taskCount) + offset, taskCount) == taskId;
  }

  /**
   * Runs a round every interval from now on, on its own thread. Not driven by {@code put}: an idle
   * task gets {@code put} only when its consumer poll returns, which can be as rare as the worker's
   * offset flush interval, and the last rows before a quiet spell must still be compacted (with the
   * lookup changelog producer, compaction is what publishes them to the changelog).
   */
  void start() {
    if (executor != null) {
      executor.scheduleWithFixedDelay(
          this::runRound, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * One round over the connector's tables. Never throws: the executor would cancel every later
   * round, silently, while the task stays RUNNING.
   */
  void runRound() {
    List<String> names;
    try {
      names = catalog.listTables(database);
      if (listingFailed) {
        LOG.info("Task {} lists the tables of {} again; compaction goes on", taskId, database);
        listingFailed = false;
      }
    } catch (Throwable e) {
      if (!listingFailed) {
        LOG.error(
            "Task {} cannot list the tables of {} to compact them; retrying every {} (logged"
                + " again only once it works)",
            taskId,
            database,
            interval,
            e);
        listingFailed = true;
      }
      return;
    }
    for (String name : names) {
      if (Thread.currentThread().isInterrupted()) {
        return; // closing
      }
      Identifier id = Identifier.create(database, name);
      try {
        compactIfDue(compactor, id);
      } catch (Throwable e) {
        // compaction rewrites committed data only: a failed round loses nothing, the next starts
        // over; isolated per table so one that always fails does not starve the ones after it
        failed(id, e);
      }
    }
  }

  private void compactIfDue(Compactor compactor, Identifier id) throws Exception {
    Table table;
    try {
      table = catalog.getTable(id);
    } catch (Catalog.TableNotExistException e) {
      return; // dropped since the listing
    }
    if (!(table instanceof FileStoreTable fileStoreTable) || !ours(fileStoreTable)) {
      return;
    }
    CompactionMetrics tableMetrics = metrics.compaction(id.getFullName());
    long now = System.currentTimeMillis();
    long ageMs = heartbeatAge(id, fileStoreTable, tableMetrics, now);
    long takeoverAfterMs =
        Math.max(
            TAKEOVER_AFTER_INTERVALS * interval.toMillis(), TAKEOVER_AT_THE_EARLIEST.toMillis());
    boolean owner = owns(id, taskId, taskCount);
    boolean standIn = !owner && standsIn(id, taskId, taskCount, ageMs, takeoverAfterMs);
    if (!owner && !standIn) {
      takenOver.remove(id);
      return;
    }
    if (standIn && takenOver.put(id, true) == null) {
      LOG.warn(
          "Table {} was last compacted {} ago (owner: task {} of {}): task {} compacts it too"
              + " until the heartbeat is fresh again. Check the owner task's status and logs.",
          id.getFullName(),
          Duration.ofMillis(ageMs),
          owner(id, taskCount),
          taskCount,
          taskId);
    }
    long started = System.nanoTime();
    CompactionResult result = compaction.run(compactor, fileStoreTable, full);
    long done = System.currentTimeMillis();
    CompactionHeartbeat.record(fileStoreTable, users.compactor() + " (task " + taskId + ")", done);
    withoutHeartbeatSince.remove(id);
    long failedRounds = tableMetrics.failingRounds();
    tableMetrics.succeeded(done, (System.nanoTime() - started) / 1_000_000, result.filesAfter());
    if (failedRounds > 0) {
      LOG.info(
          "Compaction of table {} by task {} works again after {} failed rounds",
          id.getFullName(),
          taskId,
          failedRounds);
    }
  }

  /** How long ago any task last compacted the table; unknown heartbeats count from first sight. */
  private long heartbeatAge(
      Identifier id, FileStoreTable table, CompactionMetrics tableMetrics, long now) {
    var beat = CompactionHeartbeat.read(table);
    if (beat.isPresent()) {
      withoutHeartbeatSince.remove(id);
      tableMetrics.lastSuccess(beat.get().timeMillis());
      return Math.max(0, now - beat.get().timeMillis());
    }
    return now - withoutHeartbeatSince.computeIfAbsent(id, t -> now);
  }

  private void failed(Identifier id, Throwable e) {
    long streak = metrics.compaction(id.getFullName()).failed();
    if (streak == 1) {
      LOG.error(
          "Compaction of table {} by task {} failed; it is retried every {} and logged again only"
              + " once it works (metric table-compaction-failing-rounds counts the failed rounds)",
          id.getFullName(),
          taskId,
          interval,
          e);
    } else {
      LOG.debug("Compaction of table {} failed again ({} rounds)", id.getFullName(), streak, e);
    }
  }

  private boolean ours(FileStoreTable table) {
    Snapshot latest = table.snapshotManager().latestSnapshot();
    return latest != null && users.isConnectors(latest.commitUser());
  }

  @Override
  public void close() {
    if (executor != null) {
      executor.shutdownNow();
      try {
        executor.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
