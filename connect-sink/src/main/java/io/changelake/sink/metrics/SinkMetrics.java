package io.changelake.sink.metrics;

import static io.changelake.metrics.MetricSpec.gauge;
import static io.changelake.metrics.MetricSpec.sensor;

import io.changelake.lsm.fault.OutageTracker;
import io.changelake.metrics.MetricGroup;
import io.changelake.metrics.MetricSpec;
import io.changelake.metrics.MetricsRegistries;
import io.changelake.metrics.MetricsRegistry;
import io.changelake.metrics.MetricsRegistry.Stat;
import io.changelake.metrics.OutageMetrics;
import io.changelake.metrics.TaggedMetrics;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Metrics of one sink task and of each table it writes, published through Connect's plugin metrics
 * (KIP-877) on Kafka 4.1+ workers and through plain JMX on 3.9 and 4.0 ({@link MetricsRegistries}),
 * under {@code kafka.connect:type=plugins,connector=<name>,task=<id>} with a {@code table} tag for
 * table metrics, so they appear in JMX next to Connect's own task metrics.
 */
public final class SinkMetrics implements AutoCloseable {
  private final MetricsRegistry registry;
  // read by the reporters' freshness gauge while the task thread adds tables
  private final Map<String, TableMetrics> tables = new java.util.concurrent.ConcurrentHashMap<>();
  // the compactor thread registers compaction metrics while the task thread registers its own
  private final Map<String, CompactionMetrics> compactions =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final MetricGroup<Metric> metrics;
  private final AtomicLong commitNanosTotal = new AtomicLong();
  // System.nanoTime() when the round in progress started, 0 between rounds
  private final AtomicLong roundStartedNanos = new AtomicLong();

  /** What is published of the task, in registration order. */
  enum Metric implements MetricSpec.Declared {
    RECORDS_IN,
    RECORDS_SKIPPED,
    DLQ_RECORDS,
    COMMIT_ROUNDS,
    COMMIT_ROUNDS_STARTED,
    COMMIT_ROUND_DURATION,
    RECORDS_IN_RATE,
    DLQ_RATE,
    COMMIT_ROUND_RATE,
    COMMIT_TIME,
    FRESHNESS_MAX;

    @Override
    public MetricSpec spec() {
      return switch (this) {
        case RECORDS_IN -> gauge("records-in-total", "Records received by the task.");
        case RECORDS_SKIPPED ->
            gauge(
                "records-skipped-total",
                "Records skipped because their table already contained them (replay after a"
                    + " restart).");
        case DLQ_RECORDS -> gauge("dlq-records-total", "Records sent to the dead-letter queue.");
        case COMMIT_ROUNDS ->
            gauge(
                "commit-rounds-total", "Commit rounds of the task that ended (landed or failed).");
        case COMMIT_ROUNDS_STARTED ->
            gauge(
                "commit-rounds-started-total",
                "Commit rounds of the task that started (sealed). Minus commit-rounds-total: the"
                    + " round in flight (0 or 1), on the task thread or the committer threads;"
                    + " sampled next to the consumer's records-consumed-total, a round was in flight"
                    + " between two samples when the later started count exceeds the earlier ended"
                    + " count.");
        case COMMIT_ROUND_DURATION ->
            gauge(
                "commit-round-duration-ms", "Duration of the latest commit round over all tables.");
        case RECORDS_IN_RATE ->
            sensor("records-in", "Records received by the task per second.", Stat.RATE);
        case DLQ_RATE ->
            sensor("dlq-records", "Records sent to the dead-letter queue per second.", Stat.RATE);
        case COMMIT_ROUND_RATE ->
            sensor(
                "commit-round-duration-ms",
                "Commit rounds per second (rate), and their average and longest duration in ms.",
                Stat.RATE,
                Stat.AVG,
                Stat.MAX);
        case COMMIT_TIME ->
            gauge(
                "commit-time-ms-total",
                "Time the task spent in commit rounds, the round in progress included: sampled next to"
                    + " the consumer's records-consumed-total it shows whether consumption goes on"
                    + " during rounds.");
        case FRESHNESS_MAX ->
            gauge(
                "freshness-ms-max",
                "The largest table-freshness-ms over the task's tables: now minus the newest committed"
                    + " source timestamp of the table furthest behind; -1 while no table's is known.");
      };
    }
  }

  /** The metrics of sink task {@code task} of {@code connector}, published as the worker allows. */
  public static SinkMetrics of(SinkTaskContext context, String connector, int task) {
    return new SinkMetrics(MetricsRegistries.forSinkTask(context, connector, task));
  }

  /** {@code registry} may be null (tests without a worker): then nothing is published. */
  public SinkMetrics(MetricsRegistry registry) {
    this.registry = registry == null ? MetricsRegistry.NONE : registry;
    metrics =
        new MetricGroup<>(
            TaggedMetrics.untagged(this.registry),
            Metric.class,
            Map.of(
                Metric.COMMIT_TIME, this::commitMillisTotal,
                Metric.FRESHNESS_MAX, this::freshnessMsMax));
  }

  /** The largest known freshness over the tables, -1 when none is known. */
  public long freshnessMsMax() {
    long max = -1;
    for (TableMetrics table : tables.values()) {
      max = Math.max(max, table.freshnessMs());
    }
    return max;
  }

  public void recordIn() {
    metrics.value(Metric.RECORDS_IN).incrementAndGet();
    metrics.record(Metric.RECORDS_IN_RATE, 1);
  }

  public void recordSkipped() {
    metrics.value(Metric.RECORDS_SKIPPED).incrementAndGet();
  }

  public void recordToDlq() {
    metrics.value(Metric.DLQ_RECORDS).incrementAndGet();
    metrics.record(Metric.DLQ_RATE, 1);
  }

  /** A commit round starts; {@link #commitRound} ends it. */
  public void commitRoundStarted() {
    roundStartedNanos.set(System.nanoTime());
    metrics.value(Metric.COMMIT_ROUNDS_STARTED).incrementAndGet();
  }

  public void commitRound(long durationMs) {
    long started = roundStartedNanos.getAndSet(0);
    commitNanosTotal.addAndGet(started == 0 ? durationMs * 1_000_000 : System.nanoTime() - started);
    metrics.value(Metric.COMMIT_ROUNDS).incrementAndGet();
    metrics.value(Metric.COMMIT_ROUND_DURATION).set(durationMs);
    metrics.record(Metric.COMMIT_ROUND_RATE, durationMs);
  }

  private long commitMillisTotal() {
    long started = roundStartedNanos.get();
    long inProgress = started == 0 ? 0 : Math.max(0, System.nanoTime() - started);
    return (commitNanosTotal.get() + inProgress) / 1_000_000;
  }

  public long recordsIn() {
    return metrics.value(Metric.RECORDS_IN).get();
  }

  public long dlqRecords() {
    return metrics.value(Metric.DLQ_RECORDS).get();
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
    OutageMetrics.register(registry, outages);
  }

  /**
   * The metrics tagged {@code tag=value}, for {@link TableMetrics} and {@link CompactionMetrics}.
   */
  TaggedMetrics tagged(String tag, String value) {
    return TaggedMetrics.tagged(registry, tag, value);
  }

  @Override
  public void close() {
    registry.close();
  }
}
