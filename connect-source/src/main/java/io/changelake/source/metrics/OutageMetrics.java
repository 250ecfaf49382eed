package io.changelake.source.metrics;

import io.changelake.lsm.fault.Dependency;
import io.changelake.lsm.fault.OutageTracker;
import java.util.LinkedHashMap;

/**
 * The source task's waiting on its dependencies, under the same names as the sink's: per {@code
 * dependency} tag {@code dependency-wait-ms-total} and {@code dependency-retries-total}, and the
 * task's {@code last-error}, in JMX under {@code kafka.connect:type=plugins,connector=<name>,
 * task=<id>}.
 */
final class OutageMetrics {
  private OutageMetrics() {}

  static void register(SourceMetrics owner, OutageTracker outages) {
    for (Dependency dependency : Dependency.values()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("dependency", dependency.tag());
      owner.gauge(
          "dependency-wait-ms-total",
          "Time the task spent waiting for this dependency to come back after transient"
              + " failures, the outage in progress included.",
          tags,
          () -> outages.waitedMillis(dependency));
      owner.gauge(
          "dependency-retries-total",
          "Retries after transient failures of this dependency.",
          tags,
          () -> outages.retries(dependency));
    }
    owner.gauge(
        "last-error",
        "What failed last and why (empty before the first failure).",
        new LinkedHashMap<>(),
        outages::lastError);
  }
}
