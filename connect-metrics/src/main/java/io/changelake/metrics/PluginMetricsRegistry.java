package io.changelake.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges through Connect's plugin metrics (KIP-877, Kafka 4.1+); the worker adds the {@code
 * connector} and {@code task} tags itself.
 *
 * <p>The only class of the plugin that references {@link PluginMetrics}, which a 3.9 or 4.0 worker
 * does not have: {@link MetricsRegistries} touches it only after checking that the worker's task
 * context offers {@code pluginMetrics()}, so it is never loaded on older workers.
 */
public final class PluginMetricsRegistry implements MetricsRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(PluginMetricsRegistry.class);

  private final PluginMetrics plugin;
  private final List<MetricName> registered = new ArrayList<>();
  private final List<String> sensors = new ArrayList<>();
  private boolean closed;
  private boolean nameTakenLogged;

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

  /** A registry over given plugin metrics: for tests that play the worker's part. */
  public static MetricsRegistry wrap(PluginMetrics plugin) {
    return new PluginMetricsRegistry(plugin);
  }

  @Override
  public synchronized <T> void gauge(
      String name, String description, Map<String, String> tags, Supplier<T> value) {
    if (closed) {
      return;
    }
    MetricName metricName = plugin.metricName(name, description, new LinkedHashMap<>(tags));
    try {
      plugin.addMetric(metricName, (Gauge<T>) (config, now) -> value.get());
    } catch (IllegalArgumentException taken) {
      // The previous instance of this task still holds the name: Connect gave up waiting for its
      // stop (a consumer or producer call blocked while the broker was away) and starts this one
      // meanwhile; the worker removes that instance's metrics only once it has ended. A metric is
      // not worth failing the task for (it did, for good, in e2e BrokerRestartTest).
      if (!nameTakenLogged) {
        nameTakenLogged = true;
        LOG.warn(
            "Metric {} (and maybe others) is still registered by the previous instance of this"
                + " task, which has not finished stopping; this instance does not publish it"
                + " until the task is restarted",
            metricName);
      }
      return;
    }
    registered.add(metricName);
  }

  @Override
  public synchronized Recorder sensor(
      String name, String description, Map<String, String> tags, Set<Stat> stats) {
    if (closed) {
      return Recorder.NONE;
    }
    String sensorName = Stats.sensorName(name, tags);
    Sensor sensor;
    try {
      sensor = plugin.addSensor(sensorName);
      for (Stat stat : stats) {
        sensor.add(
            plugin.metricName(stat.metric(name), description, new LinkedHashMap<>(tags)),
            Stats.of(stat));
      }
    } catch (IllegalArgumentException taken) {
      // held by the previous instance of this task, as for gauges: not worth failing the task
      LOG.warn("Sensor {} is still registered by the previous instance of this task", sensorName);
      return Recorder.NONE;
    }
    sensors.add(sensorName);
    return sensor::record;
  }

  @Override
  public synchronized void close() {
    closed = true;
    registered.forEach(plugin::removeMetric);
    registered.clear();
    sensors.forEach(plugin::removeSensor);
    sensors.clear();
  }
}
