package io.changelake.metrics;

import java.util.EnumSet;
import java.util.Set;

/**
 * One metric as a class declares it: its published name, the description dashboards show, and
 * whether it is a gauge (no stats) or a sensor publishing {@code stats}. A class lists its metrics
 * as the constants of one enum ({@link Declared}), so names and descriptions stand together in one
 * table and {@link MetricGroup} registers them all.
 */
public record MetricSpec(String name, String description, Set<MetricsRegistry.Stat> stats) {
  public MetricSpec {
    stats = Set.copyOf(stats);
  }

  /** A gauge named {@code name}. */
  public static MetricSpec gauge(String name, String description) {
    return new MetricSpec(name, description, Set.of());
  }

  /** A sensor named {@code name} publishing {@code stats}, e.g. {@code name-rate}. */
  public static MetricSpec sensor(
      String name, String description, MetricsRegistry.Stat first, MetricsRegistry.Stat... more) {
    return new MetricSpec(name, description, EnumSet.of(first, more));
  }

  public boolean isSensor() {
    return !stats.isEmpty();
  }

  /** Implemented by the enum of a class's metrics: each constant carries its spec. */
  public interface Declared {
    MetricSpec spec();
  }
}
