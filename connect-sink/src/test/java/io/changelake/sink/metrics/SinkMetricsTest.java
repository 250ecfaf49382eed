package io.changelake.sink.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.metrics.PluginMetricsRegistry;
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
}
