package io.changelake.sink.metrics;

import io.changelake.metrics.MetricsRegistry;
import java.util.LinkedHashMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/** Counters of one table within one task; tagged {@code table=<database.table>}. */
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

  TableMetrics(String table, SinkMetrics owner) {
    LinkedHashMap<String, String> tags = new LinkedHashMap<>();
    tags.put("table", table);
    owner.gauge("table-records-in-total", "Records routed to the table.", tags, recordsIn::get);
    owner.gauge("table-rows-written-total", "Rows written to the table.", tags, rowsWritten::get);
    owner.gauge("table-commits-total", "Snapshots committed to the table.", tags, commits::get);
    owner.gauge(
        "table-commit-duration-ms",
        "Duration of the latest commit of the table.",
        tags,
        commitDurationMs::get);
    owner.gauge(
        "table-last-snapshot-id",
        "Id of the latest snapshot this task committed, -1 before the first.",
        tags,
        lastSnapshotId::get);
    owner.gauge(
        "table-commit-lag-ms",
        "How long the oldest row not yet committed has been waiting; 0 when all are committed.",
        tags,
        () -> {
          long since = oldestPendingMs.get();
          return since == 0 ? 0L : Math.max(0, System.currentTimeMillis() - since);
        });
    owner.gauge(
        "table-schema-changes-total",
        "Schema changes this task applied to the table.",
        tags,
        schemaChanges::get);
    rowsWrittenSensor =
        owner.sensor(
            "table-rows-written",
            "Rows written to the table per second.",
            tags,
            Set.of(MetricsRegistry.Stat.RATE));
    commitSensor =
        owner.sensor(
            "table-commit-duration-ms",
            "Commits of the table per second (rate), and their average and longest duration in ms.",
            tags,
            Set.of(MetricsRegistry.Stat.RATE, MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
    rowsPerCommitSensor =
        owner.sensor(
            "table-rows-per-commit",
            "Average and largest number of rows one commit of the table carried.",
            tags,
            Set.of(MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
  }

  public void recordIn() {
    recordsIn.incrementAndGet();
  }

  public void rowWritten() {
    rowsWritten.incrementAndGet();
    rowsWrittenSensor.record(1);
    oldestPendingMs.compareAndSet(0, System.currentTimeMillis());
  }

  public void committed(long durationMs, java.util.OptionalLong snapshotId) {
    commits.incrementAndGet();
    commitDurationMs.set(durationMs);
    commitSensor.record(durationMs);
    long written = rowsWritten.get();
    rowsPerCommitSensor.record(written - rowsAtLastCommit.getAndSet(written));
    snapshotId.ifPresent(lastSnapshotId::set);
    oldestPendingMs.set(0);
  }

  public void schemaChanged(int steps) {
    schemaChanges.addAndGet(steps);
  }

  public long rowsWritten() {
    return rowsWritten.get();
  }
}
