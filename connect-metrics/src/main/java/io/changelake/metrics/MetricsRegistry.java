package io.changelake.metrics;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Where one task publishes its gauges. Whichever implementation the worker allows, a gauge appears
 * in JMX as attribute {@code name} of {@code kafka.connect:type=plugins,connector=<connector>,
 * task=<id>[,<tags>...]}, so dashboards and alerts do not depend on the worker's Kafka version.
 *
 * <p>Gauges may be added from several threads (the sink's compactor registers its own). {@link
 * #close()} removes every gauge this registry added; adding after close is a no-op.
 */
public interface MetricsRegistry extends AutoCloseable {
  /**
   * Publishes {@code value}, read whenever a reporter asks.
   *
   * @param tags extra MBean key properties after {@code connector} and {@code task}, in order
   */
  <T> void gauge(String name, String description, Map<String, String> tags, Supplier<T> value);

  @Override
  void close();

  /** Publishes nothing: for unit tests that run a task without a worker. */
  MetricsRegistry NONE =
      new MetricsRegistry() {
        @Override
        public <T> void gauge(
            String name, String description, Map<String, String> tags, Supplier<T> value) {}

        @Override
        public void close() {}
      };
}
