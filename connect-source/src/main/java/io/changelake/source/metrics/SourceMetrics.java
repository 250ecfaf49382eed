package io.changelake.source.metrics;

import io.changelake.lsm.fault.OutageTracker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source task's metrics, registered through Connect's plugin metrics (KIP-877) as the sink's are:
 * the worker publishes them under {@code kafka.connect:type=plugins,connector=<name>, task=<id>},
 * next to Connect's own task metrics; per table ({@link SourceTableMetrics}, tag {@code
 * table=<database.table>}) and per dependency ({@link OutageMetrics}). Every gauge is removed again
 * on {@link #close()}.
 */
public final class SourceMetrics implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SourceMetrics.class);

  private final PluginMetrics plugin;
  private boolean nameTakenLogged;
  private final Map<String, SourceTableMetrics> tables = new HashMap<>();
  private final List<MetricName> registered = new ArrayList<>();

  /** {@code plugin} may be null (a worker without plugin metrics): then nothing is published. */
  public SourceMetrics(PluginMetrics plugin) {
    this.plugin = plugin;
  }

  /** The task's metrics; without plugin metrics (a worker before Kafka 4.1) none are published. */
  public static SourceMetrics of(SourceTaskContext context) {
    try {
      return new SourceMetrics(context.pluginMetrics());
    } catch (UnsupportedOperationException | NoSuchMethodError e) {
      LOG.warn("The worker offers no plugin metrics; the source publishes no metrics");
      return new SourceMetrics(null);
    }
  }

  /** Registers the outage metrics of the task's dependencies. */
  public synchronized void outages(OutageTracker outages) {
    OutageMetrics.register(this, outages);
  }

  /** The metrics of {@code table} ({@code database.table}), registered on first use. */
  public synchronized SourceTableMetrics table(String table) {
    return tables.computeIfAbsent(table, t -> new SourceTableMetrics(t, this));
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
  public synchronized void close() {
    if (plugin != null) {
      registered.forEach(plugin::removeMetric);
    }
    registered.clear();
    tables.clear();
  }
}
