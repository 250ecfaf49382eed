package io.changelake.sink.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.compact.BucketFiles;
import io.changelake.metrics.PluginMetricsRegistry;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;

/**
 * Connect's own plugin metrics (one {@link PluginMetricsImpl} per task instance on the worker's
 * {@link Metrics}), as a worker uses them when it starts a task again before the previous instance
 * has finished stopping.
 */
class SinkMetricsTest {
  private static final Map<String, String> TASK = Map.of("connector", "lake", "task", "0");

  @Test
  void aTaskStartedWhileItsPreviousInstanceStillHoldsTheMetricsStartsAndKeepsCounting()
      throws Exception {
    try (Metrics worker = new Metrics()) {
      PluginMetricsImpl previousPlugin = new PluginMetricsImpl(worker, TASK);
      SinkMetrics previous = new SinkMetrics(PluginMetricsRegistry.wrap(previousPlugin));
      previous.recordIn();

      // before the fix: IllegalArgumentException "A metric named ... already exists", task FAILED
      SinkMetrics next =
          new SinkMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      next.recordIn();
      next.recordIn();

      MetricName recordsIn =
          worker.metricName("records-in-total", "plugins", "", new java.util.LinkedHashMap<>(TASK));
      assertThat(worker.metric(recordsIn).metricValue())
          .as("the name stays with the instance that registered it")
          .isEqualTo(1L);
      previousPlugin.close(); // the worker, once the previous instance has ended
      assertThat(worker.metric(recordsIn)).isNull();
      next.close();
    }
  }

  @Test
  void commitTimeCountsTheRoundInProgressAndStandsStillBetweenRounds() throws Exception {
    try (Metrics worker = new Metrics()) {
      SinkMetrics metrics =
          new SinkMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      MetricName name =
          worker.metricName(
              "commit-time-ms-total", "plugins", "", new java.util.LinkedHashMap<>(TASK));
      java.util.function.LongSupplier total =
          () -> ((Number) worker.metric(name).metricValue()).longValue();
      assertThat(total.getAsLong()).isZero();

      metrics.commitRoundStarted();
      // a sampler reading during a long round sees it grow, not only once the round ends
      await().until(() -> total.getAsLong() >= 20);
      metrics.commitRound(20);
      long afterRound = total.getAsLong();
      assertThat(afterRound).isGreaterThanOrEqualTo(20);

      long later = System.nanoTime() + 30_000_000L;
      await().until(() -> System.nanoTime() > later);
      assertThat(total.getAsLong()).as("no round in progress").isEqualTo(afterRound);
      assertThat(
              worker
                  .metric(
                      worker.metricName(
                          "commit-rounds-total",
                          "plugins",
                          "",
                          new java.util.LinkedHashMap<>(TASK)))
                  .metricValue())
          .isEqualTo(1L);
      metrics.close();
    }
  }

  /** What the worker's metrics hold under {@code name} for {@code table} (null: none). */
  private static Object value(Metrics worker, String name, String table) {
    java.util.LinkedHashMap<String, String> tags = new java.util.LinkedHashMap<>(TASK);
    if (table != null) {
      tags.put("table", table);
    }
    var metric = worker.metric(worker.metricName(name, "plugins", "", tags));
    return metric == null ? null : metric.metricValue();
  }

  private static CommitResult commit(long rows, long bytes) {
    return new CommitResult(
        Identifier.create("lake", "orders"), 1, java.util.OptionalLong.of(1), rows, bytes);
  }

  @Test
  void freshnessIsNowMinusTheNewestCommittedSourceTimestampAndUnknownUntilThen() {
    try (Metrics worker = new Metrics()) {
      SinkMetrics metrics =
          new SinkMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      TableMetrics orders = metrics.table("lake.orders");
      TableMetrics flat = metrics.table("lake.flat");
      long now = System.currentTimeMillis();
      orders.rowWritten(java.util.OptionalLong.of(now - 60_000));
      orders.rowWritten(java.util.OptionalLong.of(now - 50_000));
      // a flattened record at ExtractNewRecordState's defaults carries no source timestamp
      flat.rowWritten(java.util.OptionalLong.empty());
      assertThat(value(worker, "table-freshness-ms", "lake.orders"))
          .as("written, not committed")
          .isEqualTo(-1L);
      assertThat(value(worker, "freshness-ms-max", null)).isEqualTo(-1L);

      orders.committed(5, commit(2, 100));
      flat.committed(5, commit(1, 100));

      assertThat((Long) value(worker, "table-freshness-ms", "lake.orders"))
          .isBetween(50_000L, 50_000L + (System.currentTimeMillis() - now));
      assertThat(value(worker, "table-freshness-ms", "lake.flat")).isEqualTo(-1L);
      assertThat((Long) value(worker, "freshness-ms-max", null)).isGreaterThanOrEqualTo(50_000L);

      // a row written after the commit counts only once it is committed
      orders.rowWritten(java.util.OptionalLong.of(now - 1_000));
      assertThat((Long) value(worker, "table-freshness-ms", "lake.orders"))
          .isGreaterThanOrEqualTo(50_000L);
      orders.committed(5, commit(1, 0));
      assertThat((Long) value(worker, "table-freshness-ms", "lake.orders"))
          .isBetween(1_000L, 1_000L + (System.currentTimeMillis() - now));
      metrics.close();
    }
  }

  @Test
  void whileASealedCommitLandsOnlyItsRowsCountAsCommittedAndTheRestAsWaiting() {
    try (Metrics worker = new Metrics()) {
      SinkMetrics metrics =
          new SinkMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      TableMetrics orders = metrics.table("lake.orders");
      long now = System.currentTimeMillis();
      orders.rowWritten(java.util.OptionalLong.of(now - 60_000));
      // a commit round seals the table; a row is written while the round lands
      orders.sealed();
      orders.rowWritten(java.util.OptionalLong.of(now - 1_000));

      orders.committed(5, commit(1, 100));

      // the landed round holds the 60 s old row only: the newer one is not committed yet
      assertThat((Long) value(worker, "table-freshness-ms", "lake.orders"))
          .isGreaterThanOrEqualTo(60_000L);
      // the row written during the round still waits (its lag grows; it is 0 once committed)
      await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> (Long) value(worker, "table-commit-lag-ms", "lake.orders") > 0);
      assertThat(value(worker, "table-rows-per-commit-max", "lake.orders")).isEqualTo(1.0);

      orders.committed(5, commit(1, 0));
      assertThat((Long) value(worker, "table-freshness-ms", "lake.orders"))
          .isBetween(1_000L, 1_000L + (System.currentTimeMillis() - now));
      assertThat(value(worker, "table-commit-lag-ms", "lake.orders")).isEqualTo(0L);
      metrics.close();
    }
  }

  @Test
  void bytesAndSchemaChangesArePublishedAsTotalsAndRates() {
    try (Metrics worker = new Metrics()) {
      SinkMetrics metrics =
          new SinkMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      TableMetrics orders = metrics.table("lake.orders");
      orders.committed(5, commit(2, 3000));
      orders.committed(5, commit(1, 1000));
      orders.schemaChanged(2);

      assertThat(value(worker, "table-bytes-written-total", "lake.orders")).isEqualTo(4000L);
      // per second over Kafka's rate window (at least 30 s): bytes, not commits
      assertThat((Double) value(worker, "table-bytes-written-rate", "lake.orders"))
          .isBetween(4000 / 40.0, 4000 / 30.0);
      assertThat(value(worker, "table-schema-changes-total", "lake.orders")).isEqualTo(2L);
      assertThat((Double) value(worker, "table-schema-changes-rate", "lake.orders"))
          .isBetween(2 / 40.0, 2 / 30.0);
      metrics.close();
    }
  }

  @Test
  void compactionRoundsPublishTheirDurationAndTheFilesPerBucketTheyLeft() {
    try (Metrics worker = new Metrics()) {
      SinkMetrics metrics =
          new SinkMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      CompactionMetrics compaction = metrics.compaction("lake.orders");
      assertThat(value(worker, "table-files-per-bucket-max", "lake.orders")).isEqualTo(-1L);
      assertThat(value(worker, "table-files-per-bucket-avg", "lake.orders")).isEqualTo(-1.0);

      compaction.succeeded(System.currentTimeMillis(), 400, new BucketFiles(4, 3, 6));
      compaction.succeeded(System.currentTimeMillis(), 200, new BucketFiles(4, 2, 5));

      assertThat(value(worker, "table-files-per-bucket-max", "lake.orders")).isEqualTo(2L);
      assertThat(value(worker, "table-files-per-bucket-avg", "lake.orders")).isEqualTo(1.25);
      assertThat(value(worker, "table-compaction-duration-ms-max", "lake.orders")).isEqualTo(400.0);
      assertThat(value(worker, "table-compaction-duration-ms-avg", "lake.orders")).isEqualTo(300.0);
      assertThat((Double) value(worker, "table-compaction-duration-ms-rate", "lake.orders"))
          .isPositive();
      assertThat(value(worker, "table-compactions-total", "lake.orders")).isEqualTo(2L);
      metrics.close();
    }
  }
}
