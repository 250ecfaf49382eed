package io.changelake.metrics;

import java.util.Map;
import java.util.Set;
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

  /**
   * What a sensor publishes of the values it records, each as attribute {@code <name>-<suffix>}.
   */
  enum Stat {
    /** Events (values recorded) per second over Kafka's sample window (30 s by default): rate. */
    RATE("rate"),
    /**
     * The sum of the values recorded per second over the window (bytes per second when each value
     * is a byte count): suffix rate, so a sensor takes this or {@link #RATE}, never both.
     */
    VALUE_RATE("rate"),
    /** Average of the values recorded in the window: suffix avg. */
    AVG("avg"),
    /** Largest value recorded in the window: suffix max. */
    MAX("max");

    private final String suffix;

    Stat(String suffix) {
      this.suffix = suffix;
    }

    public String suffix() {
      return suffix;
    }

    /** The published attribute of {@code sensor}. */
    public String metric(String sensor) {
      return sensor + "-" + suffix;
    }
  }

  /** Takes one value per event (a record: 1, a commit: its duration); thread-safe. */
  interface Recorder {
    void record(double value);

    Recorder NONE = value -> {};
  }

  /**
   * A Kafka metrics sensor publishing {@code stats} of what it records, windowed as Kafka's own
   * client metrics are: {@code records-in} with RATE gives {@code records-in-rate}.
   *
   * @param tags as for {@link #gauge}
   */
  Recorder sensor(String name, String description, Map<String, String> tags, Set<Stat> stats);

  @Override
  void close();

  /** Publishes nothing: for unit tests that run a task without a worker. */
  MetricsRegistry NONE =
      new MetricsRegistry() {
        @Override
        public <T> void gauge(
            String name, String description, Map<String, String> tags, Supplier<T> value) {}

        @Override
        public Recorder sensor(
            String name, String description, Map<String, String> tags, Set<Stat> stats) {
          return Recorder.NONE;
        }

        @Override
        public void close() {}
      };
}
