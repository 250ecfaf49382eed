package io.changelake.source.metrics;

import static io.changelake.metrics.MetricSpec.gauge;
import static io.changelake.metrics.MetricSpec.sensor;

import io.changelake.metrics.MetricGroup;
import io.changelake.metrics.MetricSpec;
import io.changelake.metrics.MetricsRegistry.Stat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one task published of one table; tagged {@code table=<database.table>}. Names follow the
 * sink's table metrics ({@code table-...-total}, {@code table-last-snapshot-id}).
 */
public final class SourceTableMetrics {
  /** What is published of the table, in registration order. */
  enum Metric implements MetricSpec.Declared {
    RECORDS_OUT,
    TRANSACTIONS,
    LAST_SNAPSHOT_ID,
    SNAPSHOTS_BEHIND,
    TIME_SINCE_LAST_SNAPSHOT,
    STOPPED,
    RECORDS_OUT_RATE,
    TRANSACTION_RATE;

    @Override
    public MetricSpec spec() {
      return switch (this) {
        case RECORDS_OUT ->
            gauge(
                "table-records-out-total",
                "Records the task handed to Connect for the table (change events and tombstones).");
        case TRANSACTIONS ->
            gauge(
                "table-transactions-total",
                "Snapshots of the table the task published with records; with"
                    + " transaction.boundary=connector each one is a Kafka transaction (or several,"
                    + " when it stays open past transaction.max.duration.ms).");
        case LAST_SNAPSHOT_ID ->
            gauge(
                "table-last-snapshot-id",
                "Id of the newest snapshot of the table the task has read completely, -1 before the"
                    + " first.");
        case SNAPSHOTS_BEHIND ->
            gauge(
                "table-snapshots-behind",
                "Snapshots committed to the table after the newest one the task has read"
                    + " completely.");
        case TIME_SINCE_LAST_SNAPSHOT ->
            gauge(
                "table-time-since-last-snapshot-ms",
                "How long ago the task finished publishing a snapshot of the table with records, -1"
                    + " before the first.");
        case STOPPED ->
            gauge(
                "table-stopped",
                "1 when the task stopped publishing the table because a snapshot of it cannot be"
                    + " read (the error, logged at ERROR, names table, snapshot and column; the"
                    + " task's other tables go on), else 0. table-snapshots-behind keeps counting"
                    + " from that snapshot.");
        case RECORDS_OUT_RATE ->
            sensor(
                "table-records-out",
                "Records the task handed to Connect for the table per second.",
                // one recording per batch of records, not per record: the poll loop stays cheap
                Stat.VALUE_RATE);
        case TRANSACTION_RATE ->
            sensor(
                "table-transactions",
                "Snapshots of the table the task published with records per second (with"
                    + " transaction.boundary=connector: Kafka transactions per second).",
                Stat.RATE);
      };
    }
  }

  private final MetricGroup<Metric> metrics;
  // wall-clock time the task last finished publishing a snapshot with records; 0 before the first
  private final AtomicLong lastPublishedMs = new AtomicLong();

  SourceTableMetrics(String table, SourceMetrics owner) {
    metrics =
        new MetricGroup<>(
            owner.tagged("table", table),
            Metric.class,
            Map.of(
                Metric.TIME_SINCE_LAST_SNAPSHOT,
                () -> {
                  long at = lastPublishedMs.get();
                  return at == 0 ? -1L : Math.max(0, System.currentTimeMillis() - at);
                }));
    // no snapshot read yet
    metrics.value(Metric.LAST_SNAPSHOT_ID).set(-1);
  }

  /**
   * Whether the task has stopped publishing the table (it could not read a snapshot; the task's
   * other tables go on). Alert on it: nothing of the table is published until the task restarts.
   */
  public void stopped(boolean isStopped) {
    metrics.value(Metric.STOPPED).set(isStopped ? 1 : 0);
  }

  public long stoppedFlag() {
    return metrics.value(Metric.STOPPED).get();
  }

  public void recordsOut(int count) {
    metrics.value(Metric.RECORDS_OUT).addAndGet(count);
    if (count > 0) {
      metrics.record(Metric.RECORDS_OUT_RATE, count);
    }
  }

  /** The task read snapshot {@code snapshotId} completely; {@code published}: it had records. */
  public void snapshotDone(long snapshotId, boolean published) {
    metrics.value(Metric.LAST_SNAPSHOT_ID).accumulateAndGet(snapshotId, Math::max);
    if (published) {
      metrics.value(Metric.TRANSACTIONS).incrementAndGet();
      metrics.record(Metric.TRANSACTION_RATE, 1);
      lastPublishedMs.set(System.currentTimeMillis());
    }
  }

  /**
   * Where reading stands: everything before {@code nextSnapshot} is read, the table's newest
   * snapshot is {@code latestSnapshot} (null for an empty table).
   */
  public void position(long nextSnapshot, Long latestSnapshot) {
    long readThrough = nextSnapshot - 1;
    if (readThrough >= 1) {
      metrics.value(Metric.LAST_SNAPSHOT_ID).accumulateAndGet(readThrough, Math::max);
    }
    long latest = latestSnapshot == null ? 0 : latestSnapshot;
    metrics
        .value(Metric.SNAPSHOTS_BEHIND)
        .set(Math.max(0, latest - Math.max(readThrough, lastSnapshotId())));
  }

  public long records() {
    return metrics.value(Metric.RECORDS_OUT).get();
  }

  public long transactions() {
    return metrics.value(Metric.TRANSACTIONS).get();
  }

  public long lastSnapshotId() {
    return metrics.value(Metric.LAST_SNAPSHOT_ID).get();
  }

  public long snapshotsBehind() {
    return metrics.value(Metric.SNAPSHOTS_BEHIND).get();
  }
}
