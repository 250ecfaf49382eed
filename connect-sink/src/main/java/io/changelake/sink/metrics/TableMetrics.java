package io.changelake.sink.metrics;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.metrics.MetricsRegistry;
import io.changelake.metrics.TaggedMetrics;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one table within one task; tagged {@code table=<database.table>}. Updated by the
 * thread that writes and commits the table, read by the worker's metrics reporters: every field is
 * atomic.
 */
public final class TableMetrics {
  private final AtomicLong recordsIn = new AtomicLong();
  private final AtomicLong rowsWritten = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong commitDurationMs = new AtomicLong();
  private final AtomicLong lastSnapshotId = new AtomicLong(-1);
  private final AtomicLong schemaChanges = new AtomicLong();
  // wall-clock time the oldest uncommitted row arrived; 0 when everything is committed
  private final AtomicLong oldestPendingMs = new AtomicLong();
  // rows written when the previous commit ended: the next commit's rows are the difference
  private final AtomicLong rowsAtLastCommit = new AtomicLong();
  private final MetricsRegistry.Recorder rowsWrittenSensor;
  private final MetricsRegistry.Recorder commitSensor;
  private final MetricsRegistry.Recorder rowsPerCommitSensor;
  private final MetricsRegistry.Recorder bytesSensor;
  private final MetricsRegistry.Recorder schemaChangeSensor;
  private final AtomicLong bytesWritten = new AtomicLong();
  // newest source.ts_ms of the rows written since the last commit, and of the committed rows; 0
  // while unknown (no row carried one)
  private final AtomicLong pendingNewestSourceMs = new AtomicLong();
  private final AtomicLong committedNewestSourceMs = new AtomicLong();
  // the rows of a commit sealed but not landed yet (a round in flight): their newest source.ts_ms,
  // when the oldest arrived, and the rows written when it was sealed; counted once it lands, not
  // with the rows written meanwhile
  private final AtomicLong sealedNewestSourceMs = new AtomicLong();
  private final AtomicLong sealedOldestMs = new AtomicLong();
  private final AtomicLong rowsAtSeal = new AtomicLong();
  private final AtomicBoolean sealPending = new AtomicBoolean();

  TableMetrics(String table, SinkMetrics owner) {
    TaggedMetrics metrics = owner.tagged("table", table);
    metrics.gauge("table-records-in-total", "Records routed to the table.", recordsIn::get);
    metrics.gauge("table-rows-written-total", "Rows written to the table.", rowsWritten::get);
    metrics.gauge("table-commits-total", "Snapshots committed to the table.", commits::get);
    metrics.gauge(
        "table-commit-duration-ms",
        "Duration of the latest commit of the table.",
        commitDurationMs::get);
    metrics.gauge(
        "table-last-snapshot-id",
        "Id of the latest snapshot this task committed, -1 before the first.",
        lastSnapshotId::get);
    metrics.gauge(
        "table-commit-lag-ms",
        "How long the oldest row not yet committed has been waiting; 0 when all are committed.",
        this::commitLagMs);
    metrics.gauge(
        "table-schema-changes-total",
        "Schema changes this task applied to the table.",
        schemaChanges::get);
    rowsWrittenSensor =
        metrics.sensor(
            "table-rows-written",
            "Rows written to the table per second.",
            Set.of(MetricsRegistry.Stat.RATE));
    commitSensor =
        metrics.sensor(
            "table-commit-duration-ms",
            "Commits of the table per second (rate), and their average and longest duration in ms.",
            Set.of(MetricsRegistry.Stat.RATE, MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
    rowsPerCommitSensor =
        metrics.sensor(
            "table-rows-per-commit",
            "Average and largest number of rows one commit of the table carried.",
            Set.of(MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
    metrics.gauge(
        "table-bytes-written-total",
        "Bytes of the data and changelog files the task's commits added to the table.",
        bytesWritten::get);
    bytesSensor =
        metrics.sensor(
            "table-bytes-written",
            "Bytes of data and changelog files the task's commits added to the table per second.",
            Set.of(MetricsRegistry.Stat.VALUE_RATE));
    schemaChangeSensor =
        metrics.sensor(
            "table-schema-changes",
            "Schema changes this task applied to the table per second.",
            Set.of(MetricsRegistry.Stat.VALUE_RATE));
    metrics.gauge(
        "table-freshness-ms",
        "Now minus the newest source timestamp (Debezium source.ts_ms, flattened __source_ts_ms)"
            + " among the rows this task committed to the table; -1 while unknown (nothing"
            + " committed since the task started, or the records carry no source timestamp).",
        this::freshnessMs);
  }

  public void recordIn() {
    recordsIn.incrementAndGet();
  }

  /** A row was written; {@code sourceTimestamp}: when the source committed it, if known. */
  public void rowWritten(OptionalLong sourceTimestamp) {
    if (sourceTimestamp.isPresent()) {
      pendingNewestSourceMs.accumulateAndGet(sourceTimestamp.getAsLong(), Math::max);
    }
    rowWritten();
  }

  public void rowWritten() {
    rowsWritten.incrementAndGet();
    rowsWrittenSensor.record(1);
    oldestPendingMs.compareAndSet(0, System.currentTimeMillis());
  }

  /**
   * The rows written so far were sealed into a commit that lands later (a commit round): rows
   * written from here on belong to the next commit. Called on the task thread.
   */
  public void sealed() {
    // added to what an earlier seal left when its commit failed (it is retried with these rows)
    sealedNewestSourceMs.accumulateAndGet(pendingNewestSourceMs.getAndSet(0), Math::max);
    long oldest = oldestPendingMs.getAndSet(0);
    if (oldest != 0) {
      sealedOldestMs.compareAndSet(0, oldest);
    }
    rowsAtSeal.set(rowsWritten.get());
    sealPending.set(true);
  }

  /**
   * {@code result}'s rows are committed (or there was nothing to commit): those sealed by {@link
   * #sealed}, else all written so far (a commit on the task thread).
   */
  public void committed(long durationMs, CommitResult result) {
    if (!sealPending.get()) {
      sealed();
    }
    bytesWritten.addAndGet(result.bytesWritten());
    bytesSensor.record(result.bytesWritten());
    long newest = sealedNewestSourceMs.getAndSet(0);
    if (newest > 0) {
      committedNewestSourceMs.accumulateAndGet(newest, Math::max);
    }
    commits.incrementAndGet();
    commitDurationMs.set(durationMs);
    commitSensor.record(durationMs);
    long written = rowsAtSeal.get();
    rowsPerCommitSensor.record(written - rowsAtLastCommit.getAndSet(written));
    result.snapshotId().ifPresent(lastSnapshotId::set);
    sealedOldestMs.set(0);
    sealPending.set(false);
  }

  /** See the {@code table-commit-lag-ms} gauge: the oldest row sealed or written, not committed. */
  public long commitLagMs() {
    long sealedSince = sealedOldestMs.get();
    long since = sealedSince != 0 ? sealedSince : oldestPendingMs.get();
    return since == 0 ? 0L : Math.max(0, System.currentTimeMillis() - since);
  }

  public void schemaChanged(int steps) {
    schemaChanges.addAndGet(steps);
    schemaChangeSensor.record(steps);
  }

  /** See the {@code table-freshness-ms} gauge; -1 while unknown. */
  public long freshnessMs() {
    long newest = committedNewestSourceMs.get();
    return newest == 0 ? -1 : Math.max(0, System.currentTimeMillis() - newest);
  }

  public long bytesWritten() {
    return bytesWritten.get();
  }

  public long rowsWritten() {
    return rowsWritten.get();
  }
}
