package io.changelake.metrics;

import java.util.Map;
import org.apache.kafka.common.metrics.MeasurableStat;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.metrics.stats.WindowedCount;
import org.apache.kafka.common.metrics.stats.WindowedSum;

/** Kafka's stat for each {@link MetricsRegistry.Stat}; classes Kafka 3.9 clients already have. */
final class Stats {
  private Stats() {}

  static MeasurableStat of(MetricsRegistry.Stat stat) {
    return switch (stat) {
      // events per second whatever value each carries, so one sensor gives rate, avg and max
      case RATE -> new Rate(new WindowedCount());
      case VALUE_RATE -> new Rate(new WindowedSum());
      case AVG -> new Avg();
      case MAX -> new Max();
    };
  }

  /**
   * A sensor name unique within one task's metrics: Kafka keeps sensors by name, and the same
   * metric exists once per table.
   */
  static String sensorName(String name, Map<String, String> tags) {
    return tags.isEmpty() ? name : name + tags;
  }
}
