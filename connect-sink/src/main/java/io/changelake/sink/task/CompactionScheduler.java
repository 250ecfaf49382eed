package io.changelake.sink.task;

import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.sink.config.ChangelakeSinkConfig;
import java.time.Duration;
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
 * ({@code hash(table) mod tasks}), so one compactor per table exists and it never conflicts with
 * the write-only ingest writers. A table belongs to the connector when its latest snapshot was
 * committed by one of the connector's commit users.
 */
final class CompactionScheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionScheduler.class);

  private final Catalog catalog;
  private final String database;
  private final int taskId;
  private final int taskCount;
  private final String connectorUserPrefix;
  private final Duration interval;
  private final boolean full;
  private final CompactionSettings settings;
  private final ScheduledExecutorService executor;

  CompactionScheduler(
      ChangelakeSinkConfig config,
      Catalog catalog,
      int taskId,
      int taskCount,
      String connectorUserPrefix) {
    this.catalog = catalog;
    this.database = config.database();
    this.taskId = taskId;
    this.taskCount = taskCount;
    this.connectorUserPrefix = connectorUserPrefix;
    this.interval = config.compactionInterval();
    this.full = config.fullCompaction();
    this.settings =
        new CompactionSettings(
            connectorUserPrefix + "compactor",
            config.snapshotsRetainMin(),
            Math.max(config.snapshotsRetainMin(), config.snapshotsRetainMax()),
            config.snapshotTimeRetained(),
            config.orphanFilesOlderThan());
    this.executor =
        interval.isZero()
            ? null
            : Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "changelake-compactor-" + taskId);
                  t.setDaemon(true);
                  return t;
                });
  }

  /** True when this task is the one compacting {@code table}. */
  static boolean owns(Identifier table, int taskId, int taskCount) {
    return Math.floorMod(table.getFullName().hashCode(), taskCount) == taskId;
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

  private void runRound() {
    Compactor compactor = new Compactor(settings);
    try {
      for (String name : catalog.listTables(database)) {
        Identifier id = Identifier.create(database, name);
        if (!owns(id, taskId, taskCount)) {
          continue;
        }
        Table table = catalog.getTable(id);
        if (table instanceof FileStoreTable fileStoreTable && ours(fileStoreTable)) {
          compactor.compact(fileStoreTable, full);
          compactor.maintain(fileStoreTable);
        }
      }
    } catch (Exception e) {
      // compaction rewrites committed data only; a failed round loses nothing and the next one
      // starts over
      LOG.error("Compaction round of task {} failed; retrying in {}", taskId, interval, e);
    }
  }

  private boolean ours(FileStoreTable table) {
    Snapshot latest = table.snapshotManager().latestSnapshot();
    return latest != null && latest.commitUser().startsWith(connectorUserPrefix);
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
