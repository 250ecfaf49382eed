package io.changelake.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.junit.jupiter.api.Test;

class MetricsRegistriesTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  /** A task context of Connect 3.9/4.0: no pluginMetrics() on the interface at all. */
  interface ContextWithoutPluginMetrics {
    void requestCommit();
  }

  @Test
  void aWorkerWithoutPluginMetricsIsRecognisedByItsContextInterface() {
    assertThat(MetricsRegistries.offersPluginMetrics(ContextWithoutPluginMetrics.class)).isFalse();
    assertThat(MetricsRegistries.offersPluginMetrics(SinkTaskContext.class)).isTrue();
    assertThat(MetricsRegistries.offersPluginMetrics(SourceTaskContext.class)).isTrue();
  }

  @Test
  void jmxRegistryPublishesUnderThePluginMetricsNamesAndRemovesThemOnClose() throws Exception {
    AtomicLong rows = new AtomicLong(7);
    ObjectName name =
        new ObjectName("kafka.connect:type=plugins,connector=jmx-sink,task=3,table=shop.orders");
    try (MetricsRegistry registry = new JmxMetricsRegistry("jmx-sink", 3)) {
      registry.gauge("records-in-total", "Records.", Map.of(), () -> 11L);
      registry.gauge("table-rows-written-total", "Rows.", table("shop.orders"), rows::get);

      assertThat(
              JMX.getAttribute(
                  new ObjectName("kafka.connect:type=plugins,connector=jmx-sink,task=3"),
                  "records-in-total"))
          .isEqualTo(11L);
      rows.set(9);
      assertThat(JMX.getAttribute(name, "table-rows-written-total")).isEqualTo(9L);
      // Kafka's own metric count of this registry must not take the worker's MBean name
      assertThat(JMX.isRegistered(new ObjectName("kafka.connect:type=kafka-metrics-count")))
          .isFalse();
    }
    assertThat(JMX.isRegistered(name)).isFalse();
  }

  @Test
  void aSinkContextWhosePluginMetricsAreUnsupportedFallsBackToJmx() throws Exception {
    SinkTaskContext context = context(SinkTaskContext.class, null);
    try (MetricsRegistry registry = MetricsRegistries.forSinkTask(context, "fallback-sink", 0)) {
      registry.gauge("commit-rounds-total", "Rounds.", Map.of(), () -> 2L);
      assertThat(registry).isInstanceOf(JmxMetricsRegistry.class);
      assertThat(
              JMX.getAttribute(
                  new ObjectName("kafka.connect:type=plugins,connector=fallback-sink,task=0"),
                  "commit-rounds-total"))
          .isEqualTo(2L);
    }
  }

  @Test
  void aWorkerWithPluginMetricsGetsTheGaugesThroughThemAndTheyAreRemovedOnClose() {
    try (Metrics workerMetrics = new Metrics(new MetricConfig())) {
      LinkedHashMap<String, String> taskTags = new LinkedHashMap<>();
      taskTags.put("connector", "plugin-source");
      taskTags.put("task", "1");
      PluginMetricsImpl plugin = new PluginMetricsImpl(workerMetrics, taskTags);
      SourceTaskContext context = context(SourceTaskContext.class, plugin);

      MetricsRegistry registry = MetricsRegistries.forSourceTask(context, "plugin-source", 1);
      registry.gauge("table-records-out-total", "Records.", table("shop.orders"), () -> 5L);

      assertThat(registry).isInstanceOf(PluginMetricsRegistry.class);
      var metric =
          workerMetrics.metrics().entrySet().stream()
              .filter(e -> e.getKey().name().equals("table-records-out-total"))
              .findFirst()
              .orElseThrow();
      assertThat(metric.getKey().group()).isEqualTo("plugins");
      assertThat(metric.getKey().tags())
          .containsExactly(
              Map.entry("connector", "plugin-source"),
              Map.entry("task", "1"),
              Map.entry("table", "shop.orders"));
      assertThat(metric.getValue().metricValue()).isEqualTo(5L);

      registry.close();
      assertThat(workerMetrics.metrics().keySet())
          .noneMatch(n -> n.name().equals("table-records-out-total"));
    }
  }

  @Test
  void jmxSensorsPublishRateAverageAndMaximumAndGoOnClose() throws Exception {
    ObjectName name =
        new ObjectName("kafka.connect:type=plugins,connector=jmx-sensor,task=0,table=shop.orders");
    try (MetricsRegistry registry = new JmxMetricsRegistry("jmx-sensor", 0)) {
      MetricsRegistry.Recorder commits =
          registry.sensor(
              "table-commit-duration-ms",
              "Commits.",
              table("shop.orders"),
              Set.of(
                  MetricsRegistry.Stat.RATE, MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
      commits.record(100);
      commits.record(300);

      assertThat(JMX.getAttribute(name, "table-commit-duration-ms-avg")).isEqualTo(200.0);
      assertThat(JMX.getAttribute(name, "table-commit-duration-ms-max")).isEqualTo(300.0);
      assertThat((Double) JMX.getAttribute(name, "table-commit-duration-ms-rate")).isPositive();
    }
    assertThat(JMX.isRegistered(name)).isFalse();
  }

  @Test
  void aValueRateSensorPublishesTheSumOfItsValuesPerSecondNotTheCountOfEvents() throws Exception {
    ObjectName name =
        new ObjectName("kafka.connect:type=plugins,connector=jmx-bytes,task=0,table=shop.orders");
    try (MetricsRegistry registry = new JmxMetricsRegistry("jmx-bytes", 0)) {
      MetricsRegistry.Recorder bytes =
          registry.sensor(
              "table-bytes-written",
              "Bytes.",
              table("shop.orders"),
              Set.of(MetricsRegistry.Stat.VALUE_RATE));
      bytes.record(1000);
      bytes.record(3000);

      // 4000 bytes over Kafka's shortest rate window (one 30 s sample plus the time elapsed);
      // counting the two events instead would give 2/30 per second
      assertThat((Double) JMX.getAttribute(name, "table-bytes-written-rate"))
          .isBetween(4000 / 40.0, 4000 / 30.0);
    }
  }

  @Test
  void pluginMetricsSensorsCarryTheTaskTagsAndAreRemovedOnClose() {
    try (Metrics workerMetrics = new Metrics(new MetricConfig())) {
      LinkedHashMap<String, String> taskTags = new LinkedHashMap<>();
      taskTags.put("connector", "plugin-sink");
      taskTags.put("task", "2");
      MetricsRegistry registry =
          PluginMetricsRegistry.wrap(new PluginMetricsImpl(workerMetrics, taskTags));

      MetricsRegistry.Recorder rows =
          registry.sensor(
              "table-rows-per-commit",
              "Rows per commit.",
              table("shop.orders"),
              Set.of(MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
      rows.record(4);
      rows.record(8);

      Map<String, Object> values = new java.util.TreeMap<>();
      workerMetrics
          .metrics()
          .forEach(
              (n, m) -> {
                if (n.name().startsWith("table-rows-per-commit")) {
                  assertThat(n.tags())
                      .containsEntry("connector", "plugin-sink")
                      .containsEntry("table", "shop.orders");
                  values.put(n.name(), m.metricValue());
                }
              });
      assertThat(values)
          .containsExactly(
              Map.entry("table-rows-per-commit-avg", 6.0),
              Map.entry("table-rows-per-commit-max", 8.0));

      registry.close();
      assertThat(workerMetrics.metrics().keySet())
          .noneMatch(n -> n.name().startsWith("table-rows-per-commit"));
    }
  }

  private static LinkedHashMap<String, String> table(String table) {
    LinkedHashMap<String, String> tags = new LinkedHashMap<>();
    tags.put("table", table);
    return tags;
  }

  /**
   * A task context whose {@code pluginMetrics()} returns {@code plugin}, or throws as the
   * interface's default does when {@code plugin} is null.
   */
  private static <C> C context(Class<C> type, Object plugin) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (proxy, method, args) -> {
              if (method.getName().equals("pluginMetrics") && plugin != null) {
                return plugin;
              }
              throw new UnsupportedOperationException(method.getName());
            }));
  }
}
