package io.changelake.sink.metrics;

import static io.changelake.metrics.MetricSpec.gauge;
import static io.changelake.metrics.MetricSpec.sensor;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.metrics.MetricGroup;
import io.changelake.metrics.MetricSpec;
import io.changelake.metrics.MetricsRegistry.Stat;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one table within one task; tagged {@code table=<database.table>}. Updated by the
 * thread that writes and commits the table, read by the worker's metrics reporters: every field is
 * atomic.
 */
public final class TableMetrics {
  /** What is published of the table, in registration order. */
  enum Metric implements MetricSpec.Declared {
    RECORDS_IN,
    ROWS_WRITTEN,
    COMMITS,
    COMMIT_DURATION,
    LAST_SNAPSHOT_ID,
    COMMIT_LAG,
    SCHEMA_CHANGES,
    ROWS_WRITTEN_RATE,
    COMMIT_RATE,
    ROWS_PER_COMMIT,
    BYTES_WRITTEN,
    BYTES_WRITTEN_RATE,
    SCHEMA_CHANGE_RATE,
    FRESHNESS;

    @Override
    public MetricSpec spec() {
      return switch (this) {
        case RECORDS_IN -> gauge("table-records-in-total", "Records routed to the table.");
        case ROWS_WRITTEN -> gauge("table-rows-written-total", "Rows written to the table.");
        case COMMITS -> gauge("table-commits-total", "Snapshots committed to the table.");
        case COMMIT_DURATION ->
            gauge("table-commit-duration-ms", "Duration of the latest commit of the table.");
        case LAST_SNAPSHOT_ID ->
            gauge(
                "table-last-snapshot-id",
                "Id of the latest snapshot this task committed, -1 before the first.");
        case COMMIT_LAG ->
            gauge(
                "table-commit-lag-ms",
                "How long the oldest row not yet committed has been waiting; 0 when all are"
                    + " committed.");
        case SCHEMA_CHANGES ->
            gauge("table-schema-changes-total", "Schema changes this task applied to the table.");
        case ROWS_WRITTEN_RATE ->
            sensor("table-rows-written", "Rows written to the table per second.", Stat.RATE);
        case COMMIT_RATE ->
            sensor(
                "table-commit-duration-ms",
                "Commits of the table per second (rate), and their average and longest duration in"
                    + " ms.",
                Stat.RATE,
                Stat.AVG,
                Stat.MAX);
        case ROWS_PER_COMMIT ->
            sensor(
                "table-rows-per-commit",
                "Average and largest number of rows one commit of the table carried.",
                Stat.AVG,
                Stat.MAX);
        case BYTES_WRITTEN ->
            gauge(
                "table-bytes-written-total",
                "Bytes of the data and changelog files the task's commits added to the table.");
        case BYTES_WRITTEN_RATE ->
            sensor(
                "table-bytes-written",
                "Bytes of data and changelog files the task's commits added to the table per second.",
                Stat.VALUE_RATE);
        case SCHEMA_CHANGE_RATE ->
            sensor(
                "table-schema-changes",
                "Schema changes this task applied to the table per second.",
                Stat.VALUE_RATE);
        case FRESHNESS ->
            gauge(
                "table-freshness-ms",
                "Now minus the newest source timestamp (Debezium source.ts_ms, flattened"
                    + " __source_ts_ms) among the rows this task committed to the table; -1 while"
                    + " unknown (nothing committed since the task started, or the records carry no"
                    + " source timestamp).");
      };
    }
  }

  private final MetricGroup<Metric> metrics;
  // wall-clock time the oldest uncommitted row arrived; 0 when everything is committed
  private final AtomicLong oldestPendingMs = new AtomicLong();
  // rows written when the previous commit ended: the next commit's rows are the difference
  private final AtomicLong rowsAtLastCommit = new AtomicLong();
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
    metrics =
        new MetricGroup<>(
            owner.tagged("table", table),
            Metric.class,
            Map.of(Metric.COMMIT_LAG, this::commitLagMs, Metric.FRESHNESS, this::freshnessMs));
    metrics.value(Metric.LAST_SNAPSHOT_ID).set(-1);
  }

  public void recordIn() {
    metrics.value(Metric.RECORDS_IN).incrementAndGet();
  }

  /** A row was written; {@code sourceTimestamp}: when the source committed it, if known. */
  public void rowWritten(OptionalLong sourceTimestamp) {
    if (sourceTimestamp.isPresent()) {
      pendingNewestSourceMs.accumulateAndGet(sourceTimestamp.getAsLong(), Math::max);
    }
    rowWritten();
  }

  public void rowWritten() {
    metrics.value(Metric.ROWS_WRITTEN).incrementAndGet();
    metrics.record(Metric.ROWS_WRITTEN_RATE, 1);
    // the clock is read for the first pending row only: once per row showed in profiles
    if (oldestPendingMs.get() == 0) {
      oldestPendingMs.compareAndSet(0, System.currentTimeMillis());
    }
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
    rowsAtSeal.set(rowsWritten());
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
    metrics.value(Metric.BYTES_WRITTEN).addAndGet(result.bytesWritten());
    metrics.record(Metric.BYTES_WRITTEN_RATE, result.bytesWritten());
    long newest = sealedNewestSourceMs.getAndSet(0);
    if (newest > 0) {
      committedNewestSourceMs.accumulateAndGet(newest, Math::max);
    }
    metrics.value(Metric.COMMITS).incrementAndGet();
    metrics.value(Metric.COMMIT_DURATION).set(durationMs);
    metrics.record(Metric.COMMIT_RATE, durationMs);
    long written = rowsAtSeal.get();
    metrics.record(Metric.ROWS_PER_COMMIT, written - rowsAtLastCommit.getAndSet(written));
    result.snapshotId().ifPresent(metrics.value(Metric.LAST_SNAPSHOT_ID)::set);
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
    metrics.value(Metric.SCHEMA_CHANGES).addAndGet(steps);
    metrics.record(Metric.SCHEMA_CHANGE_RATE, steps);
  }

  /** See the {@code table-freshness-ms} gauge; -1 while unknown. */
  public long freshnessMs() {
    long newest = committedNewestSourceMs.get();
    return newest == 0 ? -1 : Math.max(0, System.currentTimeMillis() - newest);
  }

  public long bytesWritten() {
    return metrics.value(Metric.BYTES_WRITTEN).get();
  }

  public long rowsWritten() {
    return metrics.value(Metric.ROWS_WRITTEN).get();
  }
}
