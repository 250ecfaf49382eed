package io.changelake.metrics;

import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses, at task start, how a task publishes metrics: Connect's plugin metrics where the worker
 * has them (Kafka 4.1+), else plain JMX under the same MBean names. The choice is made by looking
 * at the worker's task context interface by reflection, so on a 3.9 or 4.0 worker nothing that
 * names {@code PluginMetrics} is ever loaded (that would fail the task with NoClassDefFoundError).
 */
public final class MetricsRegistries {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsRegistries.class);

  private MetricsRegistries() {}

  /** The registry of sink task {@code task} of {@code connector}. */
  public static MetricsRegistry forSinkTask(SinkTaskContext context, String connector, int task) {
    MetricsRegistry plugin =
        offersPluginMetrics(SinkTaskContext.class) && context != null
            ? PluginMetricsRegistry.forSink(context)
            : null;
    return plugin != null ? plugin : jmx(connector, task);
  }

  /** The registry of source task {@code task} of {@code connector}. */
  public static MetricsRegistry forSourceTask(
      SourceTaskContext context, String connector, int task) {
    MetricsRegistry plugin =
        offersPluginMetrics(SourceTaskContext.class) && context != null
            ? PluginMetricsRegistry.forSource(context)
            : null;
    return plugin != null ? plugin : jmx(connector, task);
  }

  /**
   * True when the worker's Connect API declares {@code pluginMetrics()} on this context type: the
   * interface is the worker's own (Kafka classes are never taken from the plugin), so this is the
   * worker's version speaking, not ours.
   */
  static boolean offersPluginMetrics(Class<?> contextType) {
    for (var method : contextType.getMethods()) {
      if (method.getName().equals("pluginMetrics") && method.getParameterCount() == 0) {
        return true;
      }
    }
    return false;
  }

  private static MetricsRegistry jmx(String connector, int task) {
    LOG.info(
        "The worker offers no plugin metrics (Kafka before 4.1): task {} of {} publishes its"
            + " metrics through JMX as kafka.connect:type=plugins,connector={},task={}",
        task,
        connector,
        connector,
        task);
    return new JmxMetricsRegistry(connector, task);
  }
}
