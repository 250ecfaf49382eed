package io.changelake.sink.metrics;

import io.changelake.lsm.fault.OutageTracker;
import io.changelake.metrics.MetricsRegistries;
import io.changelake.metrics.MetricsRegistry;
import io.changelake.metrics.OutageMetrics;
import io.changelake.metrics.TaggedMetrics;
import java.util.Map;
import java.util.Set;
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

  private final AtomicLong recordsIn = new AtomicLong();
  private final AtomicLong recordsSkipped = new AtomicLong();
  private final AtomicLong dlqRecords = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong lastCommitMs = new AtomicLong();
  private final MetricsRegistry.Recorder recordsInSensor;
  private final MetricsRegistry.Recorder dlqSensor;
  private final MetricsRegistry.Recorder commitRoundSensor;
  private final AtomicLong commitNanosTotal = new AtomicLong();
  // System.nanoTime() when the round in progress started, 0 between rounds
  private final AtomicLong roundStartedNanos = new AtomicLong();

  /** The metrics of sink task {@code task} of {@code connector}, published as the worker allows. */
  public static SinkMetrics of(SinkTaskContext context, String connector, int task) {
    return new SinkMetrics(MetricsRegistries.forSinkTask(context, connector, task));
  }

  /** {@code registry} may be null (tests without a worker): then nothing is published. */
  public SinkMetrics(MetricsRegistry registry) {
    this.registry = registry == null ? MetricsRegistry.NONE : registry;
    TaggedMetrics task = TaggedMetrics.untagged(this.registry);
    task.gauge("records-in-total", "Records received by the task.", recordsIn::get);
    task.gauge(
        "records-skipped-total",
        "Records skipped because their table already contained them (replay after a restart).",
        recordsSkipped::get);
    task.gauge("dlq-records-total", "Records sent to the dead-letter queue.", dlqRecords::get);
    task.gauge("commit-rounds-total", "Commit rounds of the task.", commits::get);
    task.gauge(
        "commit-round-duration-ms",
        "Duration of the latest commit round over all tables.",
        lastCommitMs::get);
    recordsInSensor =
        task.sensor(
            "records-in",
            "Records received by the task per second.",
            Set.of(MetricsRegistry.Stat.RATE));
    dlqSensor =
        task.sensor(
            "dlq-records",
            "Records sent to the dead-letter queue per second.",
            Set.of(MetricsRegistry.Stat.RATE));
    commitRoundSensor =
        task.sensor(
            "commit-round-duration-ms",
            "Commit rounds per second (rate), and their average and longest duration in ms.",
            Set.of(MetricsRegistry.Stat.RATE, MetricsRegistry.Stat.AVG, MetricsRegistry.Stat.MAX));
    task.gauge(
        "commit-time-ms-total",
        "Time the task spent in commit rounds, the round in progress included: sampled next to the"
            + " consumer's records-consumed-total it shows whether consumption goes on during"
            + " rounds.",
        this::commitMillisTotal);
    task.gauge(
        "freshness-ms-max",
        "The largest table-freshness-ms over the task's tables: now minus the newest committed"
            + " source timestamp of the table furthest behind; -1 while no table's is known.",
        this::freshnessMsMax);
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
    recordsIn.incrementAndGet();
    recordsInSensor.record(1);
  }

  public void recordSkipped() {
    recordsSkipped.incrementAndGet();
  }

  public void recordToDlq() {
    dlqRecords.incrementAndGet();
    dlqSensor.record(1);
  }

  /** A commit round starts; {@link #commitRound} ends it. */
  public void commitRoundStarted() {
    roundStartedNanos.set(System.nanoTime());
  }

  public void commitRound(long durationMs) {
    long started = roundStartedNanos.getAndSet(0);
    commitNanosTotal.addAndGet(started == 0 ? durationMs * 1_000_000 : System.nanoTime() - started);
    commits.incrementAndGet();
    lastCommitMs.set(durationMs);
    commitRoundSensor.record(durationMs);
  }

  private long commitMillisTotal() {
    long started = roundStartedNanos.get();
    long inProgress = started == 0 ? 0 : Math.max(0, System.nanoTime() - started);
    return (commitNanosTotal.get() + inProgress) / 1_000_000;
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
