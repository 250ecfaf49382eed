package io.changelake.metrics;

import io.changelake.lsm.fault.Dependency;
import io.changelake.lsm.fault.OutageTracker;

/**
 * A task's waiting on its dependencies, under the same names for the sink and the source: per
 * {@code dependency} tag (object-store, catalog, broker) {@code dependency-wait-ms-total} and
 * {@code dependency-retries-total}, and the task's {@code last-error}, in JMX under {@code
 * kafka.connect:type=plugins,connector=<name>,task=<id>}.
 */
public final class OutageMetrics {
  private OutageMetrics() {}

  /** Publishes what {@code outages} keeps. */
  public static void register(MetricsRegistry registry, OutageTracker outages) {
    for (Dependency dependency : Dependency.values()) {
      TaggedMetrics metrics = TaggedMetrics.tagged(registry, "dependency", dependency.tag());
      metrics.gauge(
          "dependency-wait-ms-total",
          "Time the task spent waiting for this dependency to come back after transient"
              + " failures, the outage in progress included.",
          () -> outages.waitedMillis(dependency));
      metrics.gauge(
          "dependency-retries-total",
          "Retries after transient failures of this dependency.",
          () -> outages.retries(dependency));
    }
    TaggedMetrics.untagged(registry)
        .gauge(
            "last-error",
            "What failed last and why (empty before the first failure).",
            outages::lastError);
  }
}
