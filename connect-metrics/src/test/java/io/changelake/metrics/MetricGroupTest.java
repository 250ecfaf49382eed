package io.changelake.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class MetricGroupTest {

  enum Metric implements MetricSpec.Declared {
    ROWS,
    AGE,
    ROWS_RATE;

    @Override
    public MetricSpec spec() {
      return switch (this) {
        case ROWS -> MetricSpec.gauge("rows-total", "Rows.");
        case AGE -> MetricSpec.gauge("age-ms", "Age.");
        case ROWS_RATE -> MetricSpec.sensor("rows", "Rows per second.", MetricsRegistry.Stat.RATE);
      };
    }
  }

  /** Keeps what was registered, in order, and what each sensor recorded. */
  static final class Recording implements MetricsRegistry {
    final Map<String, Supplier<?>> gauges = new LinkedHashMap<>();
    final List<String> registered = new ArrayList<>();
    final Map<String, List<Double>> recorded = new LinkedHashMap<>();

    @Override
    public <T> void gauge(
        String name, String description, Map<String, String> tags, Supplier<T> value) {
      registered.add(name + tags + ": " + description);
      gauges.put(name, value);
    }

    @Override
    public Recorder sensor(
        String name, String description, Map<String, String> tags, Set<Stat> stats) {
      registered.add(name + tags + " " + stats + ": " + description);
      List<Double> values = recorded.computeIfAbsent(name, n -> new ArrayList<>());
      return values::add;
    }

    @Override
    public void close() {}
  }

  @Test
  void registersEveryDeclaredMetricInOrderWithTheGroupsTagsAndPublishesCountersAndComputedValues() {
    Recording registry = new Recording();
    MetricGroup<Metric> group =
        new MetricGroup<>(
            TaggedMetrics.tagged(registry, "table", "db.t"),
            Metric.class,
            Map.of(Metric.AGE, () -> 42L));

    group.value(Metric.ROWS).addAndGet(3);
    group.record(Metric.ROWS_RATE, 3);

    assertThat(registry.registered)
        .containsExactly(
            "rows-total{table=db.t}: Rows.",
            "age-ms{table=db.t}: Age.",
            "rows{table=db.t} [RATE]: Rows per second.");
    assertThat(registry.gauges.get("rows-total").get()).isEqualTo(3L);
    assertThat(registry.gauges.get("age-ms").get()).isEqualTo(42L);
    assertThat(registry.recorded.get("rows")).containsExactly(3.0);
  }

  @Test
  void askingASensorForItsCounterNamesTheMetric() {
    MetricGroup<Metric> group =
        new MetricGroup<>(TaggedMetrics.untagged(new Recording()), Metric.class, Map.of());

    assertThatThrownBy(() -> group.value(Metric.ROWS_RATE)).hasMessageContaining("ROWS_RATE");
    assertThatThrownBy(() -> group.record(Metric.ROWS, 1)).hasMessageContaining("ROWS");
  }
}
