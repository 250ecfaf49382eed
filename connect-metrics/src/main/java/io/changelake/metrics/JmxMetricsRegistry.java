package io.changelake.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Time;

/**
 * Gauges through plain JMX, for workers without plugin metrics (Kafka 3.9 and 4.0): a task-owned
 * Kafka {@link Metrics} with a {@link JmxReporter} under the same names a 4.1+ worker gives plugin
 * metrics ({@code kafka.connect:type=plugins,connector=...,task=...}). Only Kafka client classes
 * that 3.9 already has are used.
 */
final class JmxMetricsRegistry implements MetricsRegistry {
  // what Connect's own JmxReporter uses (ConnectMetrics), and KIP-877's group for plugin metrics
  static final String JMX_PREFIX = "kafka.connect";
  static final String GROUP = "plugins";

  private final Metrics metrics;
  private boolean closed;

  JmxMetricsRegistry(String connector, int task) {
    // the connector and task tags are default tags: Kafka's own "kafka-metrics-count" MBean of
    // this Metrics then carries them too and cannot replace the worker's
    LinkedHashMap<String, String> taskTags = new LinkedHashMap<>();
    taskTags.put("connector", connector);
    taskTags.put("task", String.valueOf(task));
    JmxReporter jmx = new JmxReporter();
    jmx.configure(Map.of());
    this.metrics =
        new Metrics(
            new MetricConfig().tags(taskTags),
            List.<MetricsReporter>of(jmx),
            Time.SYSTEM,
            new KafkaMetricsContext(JMX_PREFIX));
  }

  @Override
  public synchronized <T> void gauge(
      String name, String description, Map<String, String> tags, Supplier<T> value) {
    if (closed) {
      return;
    }
    metrics.addMetric(
        metrics.metricName(name, GROUP, description, tags),
        (Gauge<T>) (config, now) -> value.get());
  }

  @Override
  public synchronized Recorder sensor(
      String name, String description, Map<String, String> tags, Set<Stat> stats) {
    if (closed) {
      return Recorder.NONE;
    }
    Sensor sensor = metrics.sensor(Stats.sensorName(name, tags));
    for (Stat stat : stats) {
      sensor.add(metrics.metricName(stat.metric(name), GROUP, description, tags), Stats.of(stat));
    }
    return sensor::record;
  }

  /** Unregisters the task's MBeans. */
  @Override
  public synchronized void close() {
    closed = true;
    metrics.close();
  }
}
