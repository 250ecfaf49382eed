package io.changelake.source;

import io.changelake.lsm.fault.Dependency;
import io.changelake.lsm.fault.OutageTracker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source task's waiting on its dependencies, under the same names as the sink's: per {@code
 * dependency} tag {@code dependency-wait-ms-total} and {@code dependency-retries-total}, and the
 * task's {@code last-error}, in JMX under {@code kafka.connect:type=plugins,connector=<name>,
 * task=<id>}.
 */
final class OutageMetrics implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutageMetrics.class);

  private final PluginMetrics plugin;
  private final List<MetricName> registered = new ArrayList<>();

  private OutageMetrics(PluginMetrics plugin) {
    this.plugin = plugin;
  }

  /** Registers the gauges; without plugin metrics (a worker before Kafka 4.1) nothing. */
  static OutageMetrics register(SourceTaskContext context, OutageTracker outages) {
    PluginMetrics plugin;
    try {
      plugin = context.pluginMetrics();
    } catch (UnsupportedOperationException | NoSuchMethodError e) {
      LOG.warn("The worker offers no plugin metrics; the source publishes no outage metrics");
      plugin = null;
    }
    OutageMetrics metrics = new OutageMetrics(plugin);
    for (Dependency dependency : Dependency.values()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("dependency", dependency.tag());
      metrics.gauge(
          "dependency-wait-ms-total",
          "Time the task spent waiting for this dependency to come back after transient"
              + " failures, the outage in progress included.",
          tags,
          () -> outages.waitedMillis(dependency));
      metrics.gauge(
          "dependency-retries-total",
          "Retries after transient failures of this dependency.",
          tags,
          () -> outages.retries(dependency));
    }
    metrics.gauge(
        "last-error",
        "What failed last and why (empty before the first failure).",
        new LinkedHashMap<>(),
        outages::lastError);
    return metrics;
  }

  private <T> void gauge(
      String name, String description, LinkedHashMap<String, String> tags, Supplier<T> value) {
    if (plugin == null) {
      return;
    }
    MetricName metricName = plugin.metricName(name, description, tags);
    plugin.addMetric(metricName, (Gauge<T>) (config, now) -> value.get());
    registered.add(metricName);
  }

  @Override
  public void close() {
    if (plugin != null) {
      registered.forEach(plugin::removeMetric);
    }
    registered.clear();
  }
}
