package io.changelake.sink.metrics;

import io.changelake.lsm.fault.Dependency;
import io.changelake.lsm.fault.OutageTracker;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metrics of one sink task and of each table it writes, registered through Connect's plugin metrics
 * (KIP-877). The worker publishes them under {@code
 * kafka.connect:type=plugins,connector=<name>,task=<id>} with a {@code table} tag for table
 * metrics, so they appear in JMX next to Connect's own task metrics.
 */
public final class SinkMetrics implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SinkMetrics.class);

  private final PluginMetrics plugin;
  private volatile boolean nameTakenLogged;
  private final Map<String, TableMetrics> tables = new HashMap<>();
  // the compactor thread registers compaction metrics while the task thread registers its own
  private final Map<String, CompactionMetrics> compactions =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.List<MetricName> registered =
      java.util.Collections.synchronizedList(new java.util.ArrayList<>());

  private final AtomicLong recordsIn = new AtomicLong();
  private final AtomicLong recordsSkipped = new AtomicLong();
  private final AtomicLong dlqRecords = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong lastCommitMs = new AtomicLong();

  /** {@code plugin} may be null (tests without a worker): then nothing is published. */
  public SinkMetrics(PluginMetrics plugin) {
    this.plugin = plugin;
    gauge(
        "records-in-total", "Records received by the task.", new LinkedHashMap<>(), recordsIn::get);
    gauge(
        "records-skipped-total",
        "Records skipped because their table already contained them (replay after a restart).",
        new LinkedHashMap<>(),
        recordsSkipped::get);
    gauge(
        "dlq-records-total",
        "Records sent to the dead-letter queue.",
        new LinkedHashMap<>(),
        dlqRecords::get);
    gauge("commit-rounds-total", "Commit rounds of the task.", new LinkedHashMap<>(), commits::get);
    gauge(
        "commit-round-duration-ms",
        "Duration of the latest commit round over all tables.",
        new LinkedHashMap<>(),
        lastCommitMs::get);
  }

  public void recordIn() {
    recordsIn.incrementAndGet();
  }

  public void recordSkipped() {
    recordsSkipped.incrementAndGet();
  }

  public void recordToDlq() {
    dlqRecords.incrementAndGet();
  }

  public void commitRound(long durationMs) {
    commits.incrementAndGet();
    lastCommitMs.set(durationMs);
  }

  public long recordsIn() {
    return recordsIn.get();
  }

  public long dlqRecords() {
    return dlqRecords.get();
  }

  /** Compaction metrics of {@code table}, registered on first use (from the compactor thread). */
  public CompactionMetrics compaction(String table) {
    return compactions.computeIfAbsent(table, t -> new CompactionMetrics(t, this));
  }

  /** The metrics of {@code table}, registered on first use. */
  public TableMetrics table(String table) {
    return tables.computeIfAbsent(table, t -> new TableMetrics(t, this));
  }

  /**
   * Publishes what {@code outages} keeps: per dependency ({@code dependency} tag: object-store,
   * catalog, broker) the time spent waiting for it and the retries, and the task's last error.
   */
  public void outages(OutageTracker outages) {
    for (Dependency dependency : Dependency.values()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("dependency", dependency.tag());
      gauge(
          "dependency-wait-ms-total",
          "Time the task spent waiting for this dependency to come back after transient"
              + " failures, the outage in progress included.",
          tags,
          () -> outages.waitedMillis(dependency));
      gauge(
          "dependency-retries-total",
          "Retries after transient failures of this dependency.",
          tags,
          () -> outages.retries(dependency));
    }
    gauge(
        "last-error",
        "What failed last and why (empty before the first failure).",
        new LinkedHashMap<>(),
        outages::lastError);
  }

  <T> void gauge(
      String name, String description, LinkedHashMap<String, String> tags, Supplier<T> value) {
    if (plugin == null) {
      return;
    }
    MetricName metricName = plugin.metricName(name, description, tags);
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
  public void close() {
    synchronized (registered) {
      if (plugin != null) {
        registered.forEach(plugin::removeMetric);
      }
      registered.clear();
    }
  }
}
