package io.changelake.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.connect.source.SourceTaskContext;

/**
 * Gauges through Connect's plugin metrics (KIP-877, Kafka 4.1+); the worker adds the {@code
 * connector} and {@code task} tags itself.
 *
 * <p>The only class of the plugin that references {@link PluginMetrics}, which a 3.9 or 4.0 worker
 * does not have: {@link MetricsRegistries} touches it only after checking that the worker's task
 * context offers {@code pluginMetrics()}, so it is never loaded on older workers.
 */
final class PluginMetricsRegistry implements MetricsRegistry {
  private final PluginMetrics plugin;
  private final List<MetricName> registered = new ArrayList<>();
  private boolean closed;

  private PluginMetricsRegistry(PluginMetrics plugin) {
    this.plugin = plugin;
  }

  /** Null when this context has no plugin metrics after all (a test double, a custom runtime). */
  static MetricsRegistry forSink(SinkTaskContext context) {
    try {
      return of(context.pluginMetrics());
    } catch (UnsupportedOperationException e) {
      return null;
    }
  }

  /** Null when this context has no plugin metrics after all. */
  static MetricsRegistry forSource(SourceTaskContext context) {
    try {
      return of(context.pluginMetrics());
    } catch (UnsupportedOperationException e) {
      return null;
    }
  }

  private static MetricsRegistry of(PluginMetrics plugin) {
    return plugin == null ? null : new PluginMetricsRegistry(plugin);
  }

  @Override
  public synchronized <T> void gauge(
      String name, String description, Map<String, String> tags, Supplier<T> value) {
    if (closed) {
      return;
    }
    MetricName metricName = plugin.metricName(name, description, new LinkedHashMap<>(tags));
    plugin.addMetric(metricName, (Gauge<T>) (config, now) -> value.get());
    registered.add(metricName);
  }

  @Override
  public synchronized void close() {
    closed = true;
    registered.forEach(plugin::removeMetric);
    registered.clear();
  }
}
