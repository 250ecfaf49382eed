package io.changelake.sink.metrics;

import io.changelake.lsm.compact.BucketFiles;
import io.changelake.metrics.MetricsRegistry;
import io.changelake.metrics.TaggedMetrics;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Compaction of one table as one task sees it; tagged {@code table=<database.table>}. Updated by
 * the task's compactor thread, read by the worker's metrics reporters: every field is atomic.
 */
public final class CompactionMetrics {
  private final AtomicLong compactions = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong failingRounds = new AtomicLong();
  // when any task of the connector last compacted the table (its heartbeat), 0 when unknown
  private final AtomicLong lastSuccessMs = new AtomicLong();
  // after this task's latest round; null before its first
  private final AtomicReference<BucketFiles> files = new AtomicReference<>();
  private final MetricsRegistry.Recorder durationSensor;

  CompactionMetrics(String table, SinkMetrics owner) {
    TaggedMetrics metrics = owner.tagged("table", table);
    metrics.gauge(
        "table-compactions-total",
        "Successful compaction and maintenance rounds of the table by this task.",
        compactions::get);
    metrics.gauge(
        "table-compaction-failures-total",
        "Compaction or maintenance rounds of the table by this task that failed.",
        failures::get);
    metrics.gauge(
        "table-compaction-failing-rounds",
        "Consecutive failed rounds of the table by this task; 0 once a round succeeds.",
        failingRounds::get);
    metrics.gauge(
        "table-compaction-age-ms",
        "Time since any task of the connector last compacted the table successfully; -1 when"
            + " not known yet. Grows past a few compaction intervals when compaction falls behind.",
        this::ageMs);
    durationSensor =
        metrics.sensor(
            "table-compaction-duration-ms",
            "Successful compaction and maintenance rounds of the table by this task per second"
                + " (rate), and their average and longest duration in ms.",
            Set.of(MetricsRegistry.Stat.RATE, MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
    metrics.gauge(
        "table-files-per-bucket-max",
        "Data files in the table's fullest bucket after this task's latest compaction round; -1"
            + " before its first.",
        () -> {
          BucketFiles after = files.get();
          return after == null ? -1L : after.maxFiles();
        });
    metrics.gauge(
        "table-files-per-bucket-avg",
        "Data files per bucket of the table on average after this task's latest compaction round;"
            + " -1 before its first.",
        () -> {
          BucketFiles after = files.get();
          return after == null ? -1.0 : after.averageFiles();
        });
  }

  /** A round took {@code durationMs} and left the table's buckets with {@code filesAfter}. */
  public void succeeded(long nowMs, long durationMs, BucketFiles filesAfter) {
    durationSensor.record(durationMs);
    files.set(filesAfter);
    succeeded(nowMs);
  }

  private void succeeded(long nowMs) {
    compactions.incrementAndGet();
    failingRounds.set(0);
    lastSuccessMs.set(nowMs);
  }

  /** Records a failed round; returns how many rounds in a row have failed now. */
  public long failed() {
    failures.incrementAndGet();
    return failingRounds.incrementAndGet();
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
    return failingRounds.get();
  }

  public long failuresTotal() {
    return failures.get();
  }

  public long compactionsTotal() {
    return compactions.get();
  }
}
