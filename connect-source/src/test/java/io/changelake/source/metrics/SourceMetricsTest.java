package io.changelake.source.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.metrics.PluginMetricsRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

/**
 * Connect's own plugin metrics (one {@link PluginMetricsImpl} per task instance on the worker's
 * {@link Metrics}), as a worker uses them when it starts a task again before the previous instance
 * has finished stopping.
 */
class SourceMetricsTest {
  private static final Map<String, String> TASK = Map.of("connector", "cl", "task", "0");

  @Test
  void aTaskStartedWhileItsPreviousInstanceStillHoldsTheMetricsRegistersTheRestAndGoesOn()
      throws Exception {
    try (Metrics worker = new Metrics()) {
      PluginMetricsImpl previousPlugin = new PluginMetricsImpl(worker, TASK);
      SourceMetrics previous = new SourceMetrics(PluginMetricsRegistry.wrap(previousPlugin));
      previous.table("db.a").recordsOut(3);

      // before the fix: IllegalArgumentException "A metric named ... already exists"
      SourceMetrics next =
          new SourceMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      next.table("db.a").recordsOut(5);
      next.table("db.b").recordsOut(7);

      LinkedHashMap<String, String> tableA = new LinkedHashMap<>(TASK);
      tableA.put("table", "db.a");
      LinkedHashMap<String, String> tableB = new LinkedHashMap<>(TASK);
      tableB.put("table", "db.b");
      assertThat(worker.metric(name(worker, tableA)).metricValue()).isEqualTo(3L);
      assertThat(worker.metric(name(worker, tableB)).metricValue())
          .as("a name the previous instance did not hold")
          .isEqualTo(7L);
      next.close();
      previousPlugin.close();
    }
  }

  private static MetricName name(Metrics worker, LinkedHashMap<String, String> tags) {
    return worker.metricName("table-records-out-total", "plugins", "", tags);
  }

  @Test
  void recordsAndTransactionsArePublishedAsRatesNextToTheirTotals() {
    try (Metrics worker = new Metrics()) {
      SourceMetrics metrics =
          new SourceMetrics(PluginMetricsRegistry.wrap(new PluginMetricsImpl(worker, TASK)));
      SourceTableMetrics table = metrics.table("db.a");
      table.recordsOut(30);
      table.snapshotDone(1, true);
      table.recordsOut(10);
      table.snapshotDone(2, true);
      table.snapshotDone(3, false);

      LinkedHashMap<String, String> tags = new LinkedHashMap<>(TASK);
      tags.put("table", "db.a");
      // per second over Kafka's rate window (at least 30 s): 40 records, 2 published snapshots
      assertThat(
              (Double)
                  worker
                      .metric(worker.metricName("table-records-out-rate", "plugins", "", tags))
                      .metricValue())
          .isBetween(40 / 40.0, 40 / 30.0);
      assertThat(
              (Double)
                  worker
                      .metric(worker.metricName("table-transactions-rate", "plugins", "", tags))
                      .metricValue())
          .isBetween(2 / 40.0, 2 / 30.0);
      assertThat(
              worker
                  .metric(worker.metricName("table-transactions-total", "plugins", "", tags))
                  .metricValue())
          .isEqualTo(2L);
      metrics.close();
    }
  }
}
