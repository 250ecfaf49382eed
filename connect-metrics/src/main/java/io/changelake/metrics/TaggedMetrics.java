package io.changelake.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The gauges and sensors of one thing a task tracks (one table, one dependency, the task itself),
 * registered with the same tags: each metrics class names its tags once instead of passing them to
 * every registration.
 *
 * @param registry where the metrics are published
 * @param tags the MBean key properties after {@code connector} and {@code task}, in order
 */
public record TaggedMetrics(MetricsRegistry registry, Map<String, String> tags) {
  public TaggedMetrics {
    tags = Collections.unmodifiableMap(new LinkedHashMap<>(tags));
  }

  /** The metrics of the task itself: no tags beyond connector and task. */
  public static TaggedMetrics untagged(MetricsRegistry registry) {
    return new TaggedMetrics(registry, Map.of());
  }

  /** The metrics tagged {@code tag=value}, e.g. {@code table=cdc.orders}. */
  public static TaggedMetrics tagged(MetricsRegistry registry, String tag, String value) {
    return new TaggedMetrics(registry, Map.of(tag, value));
  }

  /** See {@link MetricsRegistry#gauge}. */
  public <T> void gauge(String name, String description, Supplier<T> value) {
    registry.gauge(name, description, tags, value);
  }

  /** See {@link MetricsRegistry#sensor}. */
  public MetricsRegistry.Recorder sensor(
      String name, String description, Set<MetricsRegistry.Stat> stats) {
    return registry.sensor(name, description, tags, stats);
  }
}
