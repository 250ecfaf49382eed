package io.changelake.source.metrics;

import io.changelake.metrics.MetricsRegistry;
import io.changelake.metrics.TaggedMetrics;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one task published of one table; tagged {@code table=<database.table>}. Names follow the
 * sink's table metrics ({@code table-...-total}, {@code table-last-snapshot-id}).
 */
public final class SourceTableMetrics {
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong transactions = new AtomicLong();
  private final AtomicLong lastSnapshotId = new AtomicLong(-1);
  private final AtomicLong snapshotsBehind = new AtomicLong();
  // wall-clock time the task last finished publishing a snapshot with records; 0 before the first
  private final AtomicLong lastPublishedMs = new AtomicLong();
  // 1 while the task has stopped publishing the table (an unreadable snapshot), else 0
  private final AtomicLong stopped = new AtomicLong();
  private final MetricsRegistry.Recorder recordsOutSensor;
  private final MetricsRegistry.Recorder transactionsSensor;

  SourceTableMetrics(String table, SourceMetrics owner) {
    TaggedMetrics metrics = owner.tagged("table", table);
    metrics.gauge(
        "table-records-out-total",
        "Records the task handed to Connect for the table (change events and tombstones).",
        records::get);
    metrics.gauge(
        "table-transactions-total",
        "Snapshots of the table the task published with records; with"
            + " transaction.boundary=connector each one is a Kafka transaction (or several, when"
            + " it stays open past transaction.max.duration.ms).",
        transactions::get);
    metrics.gauge(
        "table-last-snapshot-id",
        "Id of the newest snapshot of the table the task has read completely, -1 before the first.",
        lastSnapshotId::get);
    metrics.gauge(
        "table-snapshots-behind",
        "Snapshots committed to the table after the newest one the task has read completely.",
        snapshotsBehind::get);
    metrics.gauge(
        "table-time-since-last-snapshot-ms",
        "How long ago the task finished publishing a snapshot of the table with records, -1 before"
            + " the first.",
        () -> {
          long at = lastPublishedMs.get();
          return at == 0 ? -1L : Math.max(0, System.currentTimeMillis() - at);
        });
    metrics.gauge(
        "table-stopped",
        "1 when the task stopped publishing the table because a snapshot of it cannot be read (the"
            + " error, logged at ERROR, names table, snapshot and column; the task's other tables"
            + " go on), else 0. table-snapshots-behind keeps counting from"
            + " that snapshot.",
        stopped::get);
    recordsOutSensor =
        metrics.sensor(
            "table-records-out",
            "Records the task handed to Connect for the table per second.",
            // one recording per batch of records, not per record: the poll loop stays cheap
            Set.of(MetricsRegistry.Stat.VALUE_RATE));
    transactionsSensor =
        metrics.sensor(
            "table-transactions",
            "Snapshots of the table the task published with records per second (with"
                + " transaction.boundary=connector: Kafka transactions per second).",
            Set.of(MetricsRegistry.Stat.RATE));
  }

  /**
   * Whether the task has stopped publishing the table (it could not read a snapshot; the task's
   * other tables go on). Alert on it: nothing of the table is published until the task restarts.
   */
  public void stopped(boolean isStopped) {
    stopped.set(isStopped ? 1 : 0);
  }

  public long stoppedFlag() {
    return stopped.get();
  }

  public void recordsOut(int count) {
    records.addAndGet(count);
    if (count > 0) {
      recordsOutSensor.record(count);
    }
  }

  /** The task read snapshot {@code snapshotId} completely; {@code published}: it had records. */
  public void snapshotDone(long snapshotId, boolean published) {
    lastSnapshotId.accumulateAndGet(snapshotId, Math::max);
    if (published) {
      transactions.incrementAndGet();
      transactionsSensor.record(1);
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
      lastSnapshotId.accumulateAndGet(readThrough, Math::max);
    }
    long latest = latestSnapshot == null ? 0 : latestSnapshot;
    snapshotsBehind.set(Math.max(0, latest - Math.max(readThrough, lastSnapshotId.get())));
  }

  public long records() {
    return records.get();
  }

  public long transactions() {
    return transactions.get();
  }

  public long lastSnapshotId() {
    return lastSnapshotId.get();
  }

  public long snapshotsBehind() {
    return snapshotsBehind.get();
  }
}
