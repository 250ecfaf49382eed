package io.changelake.sink.metrics;

import static io.changelake.metrics.MetricSpec.gauge;
import static io.changelake.metrics.MetricSpec.sensor;

import io.changelake.lsm.compact.BucketFiles;
import io.changelake.metrics.MetricGroup;
import io.changelake.metrics.MetricSpec;
import io.changelake.metrics.MetricsRegistry.Stat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Compaction of one table as one task sees it; tagged {@code table=<database.table>}. Updated by
 * the task's compactor thread, read by the worker's metrics reporters: every field is atomic.
 */
public final class CompactionMetrics {
  /** What is published of the table's compaction, in registration order. */
  enum Metric implements MetricSpec.Declared {
    COMPACTIONS,
    FAILURES,
    FAILING_ROUNDS,
    AGE,
    DURATION,
    FILES_PER_BUCKET_MAX,
    FILES_PER_BUCKET_AVG;

    @Override
    public MetricSpec spec() {
      return switch (this) {
        case COMPACTIONS ->
            gauge(
                "table-compactions-total",
                "Successful compaction and maintenance rounds of the table by this task.");
        case FAILURES ->
            gauge(
                "table-compaction-failures-total",
                "Compaction or maintenance rounds of the table by this task that failed.");
        case FAILING_ROUNDS ->
            gauge(
                "table-compaction-failing-rounds",
                "Consecutive failed rounds of the table by this task; 0 once a round succeeds.");
        case AGE ->
            gauge(
                "table-compaction-age-ms",
                "Time since any task of the connector last compacted the table successfully; -1"
                    + " when not known yet. Grows past a few compaction intervals when compaction"
                    + " falls behind.");
        case DURATION ->
            sensor(
                "table-compaction-duration-ms",
                "Successful compaction and maintenance rounds of the table by this task per second"
                    + " (rate), and their average and longest duration in ms.",
                Stat.RATE,
                Stat.AVG,
                Stat.MAX);
        case FILES_PER_BUCKET_MAX ->
            gauge(
                "table-files-per-bucket-max",
                "Data files in the table's fullest bucket after this task's latest compaction"
                    + " round; -1 before its first.");
        case FILES_PER_BUCKET_AVG ->
            gauge(
                "table-files-per-bucket-avg",
                "Data files per bucket of the table on average after this task's latest"
                    + " compaction round; -1 before its first.");
      };
    }
  }

  private final MetricGroup<Metric> metrics;
  // when any task of the connector last compacted the table (its heartbeat), 0 when unknown
  private final AtomicLong lastSuccessMs = new AtomicLong();
  // after this task's latest round; null before its first
  private final AtomicReference<BucketFiles> files = new AtomicReference<>();

  CompactionMetrics(String table, SinkMetrics owner) {
    metrics =
        new MetricGroup<>(
            owner.tagged("table", table),
            Metric.class,
            Map.of(
                Metric.AGE,
                this::ageMs,
                Metric.FILES_PER_BUCKET_MAX,
                () -> {
                  BucketFiles after = files.get();
                  return after == null ? -1L : after.maxFiles();
                },
                Metric.FILES_PER_BUCKET_AVG,
                () -> {
                  BucketFiles after = files.get();
                  return after == null ? -1.0 : after.averageFiles();
                }));
  }

  /** A round took {@code durationMs} and left the table's buckets with {@code filesAfter}. */
  public void succeeded(long nowMs, long durationMs, BucketFiles filesAfter) {
    metrics.record(Metric.DURATION, durationMs);
    files.set(filesAfter);
    succeeded(nowMs);
  }

  private void succeeded(long nowMs) {
    metrics.value(Metric.COMPACTIONS).incrementAndGet();
    metrics.value(Metric.FAILING_ROUNDS).set(0);
    lastSuccessMs.set(nowMs);
  }

  /** Records a failed round; returns how many rounds in a row have failed now. */
  public long failed() {
    metrics.value(Metric.FAILURES).incrementAndGet();
    return metrics.value(Metric.FAILING_ROUNDS).incrementAndGet();
  }

  /** The table's last success as recorded by whichever task compacted it. */
  public void lastSuccess(long timeMs) {
    lastSuccessMs.accumulateAndGet(timeMs, Math::max);
  }

  public long ageMs() {
    long last = lastSuccessMs.get();
    return last == 0 ? -1 : Math.max(0, System.currentTimeMillis() - last);
  }

  public long failingRounds() {
    return metrics.value(Metric.FAILING_ROUNDS).get();
  }

  public long failuresTotal() {
    return metrics.value(Metric.FAILURES).get();
  }

  public long compactionsTotal() {
    return metrics.value(Metric.COMPACTIONS).get();
  }
}
