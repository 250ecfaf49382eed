package io.changelake.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The metrics of one thing a task tracks (the task, a table, a table's compaction), declared by the
 * enum {@code M} and registered in its order with one set of tags. A gauge publishes either a value
 * computed by its owner ({@code computed}) or a counter the group holds ({@link #value}); each
 * sensor gets its recorder ({@link #record}). Thread-safe: counters are atomic and recorders are.
 *
 * @param <M> the enum listing the metrics
 */
public final class MetricGroup<M extends Enum<M> & MetricSpec.Declared> {
  private final Map<M, AtomicLong> values;
  private final Map<M, MetricsRegistry.Recorder> sensors;

  /**
   * Registers every metric of {@code type} with {@code metrics}' tags.
   *
   * @param computed the gauges whose value the owner computes (a time since, a maximum); every
   *     other gauge publishes the counter the group holds for it, 0 at first
   */
  public MetricGroup(TaggedMetrics metrics, Class<M> type, Map<M, Supplier<?>> computed) {
    values = new EnumMap<>(type);
    sensors = new EnumMap<>(type);
    for (M metric : type.getEnumConstants()) {
      MetricSpec spec = metric.spec();
      if (spec.isSensor()) {
        sensors.put(metric, metrics.sensor(spec.name(), spec.description(), spec.stats()));
      } else if (computed.containsKey(metric)) {
        metrics.gauge(spec.name(), spec.description(), computed.get(metric));
      } else {
        AtomicLong value = new AtomicLong();
        values.put(metric, value);
        metrics.gauge(spec.name(), spec.description(), value::get);
      }
    }
  }

  /** The counter gauge {@code metric} publishes. */
  public AtomicLong value(M metric) {
    AtomicLong value = values.get(metric);
    if (value == null) {
      throw new IllegalArgumentException(
          metric + " is a sensor or a computed gauge, not a counter");
    }
    return value;
  }

  /** Records {@code value} with sensor {@code metric}. */
  public void record(M metric, double value) {
    MetricsRegistry.Recorder sensor = sensors.get(metric);
    if (sensor == null) {
      throw new IllegalArgumentException(metric + " is a gauge, not a sensor");
    }
    sensor.record(value);
  }
}
