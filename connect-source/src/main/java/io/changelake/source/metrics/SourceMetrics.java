package io.changelake.source.metrics;

import io.changelake.lsm.fault.OutageTracker;
import io.changelake.metrics.MetricsRegistries;
import io.changelake.metrics.MetricsRegistry;
import io.changelake.metrics.OutageMetrics;
import io.changelake.metrics.TaggedMetrics;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.source.SourceTaskContext;

/**
 * A source task's metrics, published as the sink's are: through Connect's plugin metrics (KIP-877)
 * on Kafka 4.1+ workers and through plain JMX on 3.9 and 4.0 ({@link MetricsRegistries}), under
 * {@code kafka.connect:type=plugins,connector=<name>,task=<id>}, next to Connect's own task
 * metrics; per table ({@link SourceTableMetrics}, tag {@code table=<database.table>}) and per
 * dependency (connect-metrics' {@link OutageMetrics}, shared with the sink). Every gauge is removed
 * again on {@link #close()}.
 */
public final class SourceMetrics implements AutoCloseable {
  private final MetricsRegistry registry;
  private final Map<String, SourceTableMetrics> tables = new HashMap<>();

  /** {@code registry} may be null (tests without a worker): then nothing is published. */
  public SourceMetrics(MetricsRegistry registry) {
    this.registry = registry == null ? MetricsRegistry.NONE : registry;
  }

  /**
   * The metrics of source task {@code task} of {@code connector}, published as the worker allows.
   */
  public static SourceMetrics of(SourceTaskContext context, String connector, int task) {
    return new SourceMetrics(MetricsRegistries.forSourceTask(context, connector, task));
  }

  /** Registers the outage metrics of the task's dependencies. */
  public synchronized void outages(OutageTracker outages) {
    OutageMetrics.register(registry, outages);
  }

  /** The metrics of {@code table} ({@code database.table}), registered on first use. */
  public synchronized SourceTableMetrics table(String table) {
    return tables.computeIfAbsent(table, t -> new SourceTableMetrics(t, this));
  }

  /** The metrics tagged {@code tag=value}, for {@link SourceTableMetrics}. */
  TaggedMetrics tagged(String tag, String value) {
    return TaggedMetrics.tagged(registry, tag, value);
  }

  @Override
  public synchronized void close() {
    registry.close();
    tables.clear();
  }
}
