package io.changelake.e2e.bench;

import io.changelake.testkit.connect.ConnectPlatform;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The Changelake source publishing a table (start position 'full': every row as a read event)
 * against a plain producer sending the very same records, measured in the same way: from the first
 * record on the topic until the topic holds them all, with the same producer settings (acks=all,
 * idempotent, linger, batch size, in-flight requests). The source runs with JsonConverter and with
 * the caching converter (same bytes on the topic). The do-nothing source, measured as the
 * Changelake source is, hands the worker the same records from memory: the ceiling of any source on
 * this worker.
 *
 * <p>Start-up is left out of both rates: a connector's creation (REST call, rebalance of the
 * Connect group, task start, opening the catalog and planning the table's read) is not throughput,
 * and the plain producer has nothing like it; its own connection and metadata fetch are likewise
 * made before its clock starts. The source's start-up is recorded on its own ({@code startup_s}).
 */
final class SourceThroughput {

  /** One measured run. */
  record Run(
      long events,
      double seconds,
      double cpuSeconds,
      double startupSeconds,
      Map<String, Double> threadCpuSeconds,
      Map<String, Long> collections) {}

  /**
   * The threads whose CPU a run reports on its own, by name prefix ({@code %s}: the connector's
   * name; the plain producer's I/O thread is the only producer thread busy during its run). What no
   * group covers is the broker and the rest of the worker.
   */
  private static final Map<String, String> SOURCE_THREADS =
      Map.of(
          "task thread", "task-thread-%s-",
          "read-ahead thread", "changelake-source-read-%s-",
          "producer I/O thread", "kafka-producer-network-thread | connector-producer-%s-");

  private static final Map<String, String> PLAIN_THREADS =
      Map.of("producer I/O thread", "kafka-producer-network-thread | producer-");

  private final ConnectPlatform platform;
  private final TopicLoader loader;
  private final SinkRunner runner;
  private Path profileDir;

  SourceThroughput(ConnectPlatform platform, TopicLoader loader, SinkRunner runner) {
    this.platform = platform;
    this.loader = loader;
    this.runner = runner;
  }

  /** Records a JFR profile of each following source run into {@code dir}; null: none. */
  void profileInto(Path dir) {
    this.profileDir = dir;
  }

  /**
   * Publishes {@code database.table} to topic {@code <topicPrefix>.<table>}; {@code rows} events
   * are expected.
   */
  Run changelakeSource(
      String name,
      Path warehouse,
      String database,
      String table,
      String topicPrefix,
      long rows,
      Sinks.Converter converter) {
    Map<String, String> c = connector(converter);
    c.put("connector.class", "io.changelake.source.ChangelakeSourceConnector");
    c.put("paimon.warehouse", warehouse.toUri().toString());
    c.put("tables", database + "." + table);
    c.put("start.position", "full");
    c.put("topic.name.format", topicPrefix + ".${table}");
    return publish(
        name, topicPrefix + "." + table, rows, c, "changelake source / " + converter.label);
  }

  /**
   * The do-nothing source ({@link DoNothingSourceTask}) publishing to {@code target} {@code count}
   * records: those of {@code source} (its first {@code sampleSize}, in turn past that), read and
   * converted back at task start, before the clock starts.
   */
  Run doNothingSource(
      String name,
      String source,
      String target,
      long count,
      int sampleSize,
      Sinks.Converter converter) {
    Map<String, String> c = connector(converter);
    c.put("connector.class", DoNothingSourceConnector.class.getName());
    c.put(DoNothingSourceTask.BOOTSTRAP_KEY, platform.bootstrapServers());
    c.put(DoNothingSourceTask.SOURCE_TOPIC_KEY, source);
    c.put(DoNothingSourceTask.TARGET_TOPIC_KEY, target);
    c.put(DoNothingSourceTask.COUNT_KEY, String.valueOf(count));
    c.put(DoNothingSourceTask.SAMPLE_KEY, String.valueOf(sampleSize));
    return publish(name, target, count, c, null);
  }

  /** What both sources' configurations share: the producer's settings and the converters. */
  private static Map<String, String> connector(Sinks.Converter converter) {
    Map<String, String> c = new HashMap<>();
    c.put("tasks.max", "1");
    c.put("topic.creation.default.replication.factor", "1");
    c.put("topic.creation.default.partitions", "1");
    TopicLoader.throughputSettings()
        .forEach((key, value) -> c.put("producer.override." + key, value));
    c.put("key.converter", converter.className);
    c.put("key.converter.schemas.enable", "true");
    c.put("value.converter", converter.className);
    c.put("value.converter.schemas.enable", "true");
    return c;
  }

  /**
   * Creates connector {@code name} from {@code c} and measures it until {@code topic} holds {@code
   * rows} records; its profile is recorded as {@code profileCase} when one is taken (null: never).
   */
  private Run publish(
      String name, String topic, long rows, Map<String, String> c, String profileCase) {
    loader.createTopics(List.of(topic), 1);
    JfrProfile jfr =
        profileDir == null || profileCase == null
            ? null
            : new JfrProfile(profileDir.resolve(name + ".jfr"));
    // each case starts on a collected heap, as the sink's runs do: the garbage of the case before
    // (a full collection's worth, seen in most runs without this) is not this case's cost
    System.gc();
    long created = System.nanoTime();
    platform.cluster().configureConnector(name, c);
    try {
      // the clock starts once the first records are on the topic (see the class comment); those
      // already there are not counted
      long before = awaitEndOffset(topic, 1, name, FIRST_RECORD_POLL_MS);
      Map<Long, Long> threads0 = CpuClock.threadCpuBaseline();
      Map<String, Long> vm0 = CpuClock.vmThreadCpuNanos();
      Map<String, Long> gc0 = CpuClock.gcCounts();
      long cpu0 = CpuClock.processCpuNanos();
      long t0 = System.nanoTime();
      awaitEndOffset(topic, rows, name, END_POLL_MS);
      Run run =
          new Run(
              rows - before,
              (System.nanoTime() - t0) / 1e9,
              (CpuClock.processCpuNanos() - cpu0) / 1e9,
              (t0 - created) / 1e9,
              threadCpu(SOURCE_THREADS, name, threads0, vm0, List.of()),
              collectionsSince(gc0));
      if (jfr != null) {
        jfr.stop();
        recordProfiles(profileCase, jfr);
      }
      return run;
    } finally {
      if (jfr != null) {
        jfr.close();
      }
      runner.remove(name, "task-thread-" + name + "-");
    }
  }

  /**
   * Where the source's whole JVM spends its CPU, per thread: the threads are told apart by a class
   * on their stacks (names do not work, see {@link JfrProfile#summary}). The broker serves the
   * plain producer alike; the task thread converts and sends, the read-ahead thread reads Paimon
   * and builds the records, the producer's I/O thread ships the batches.
   */
  private static void recordProfiles(String caseName, JfrProfile jfr) {
    ChangelakeBenchmark.recordProfile(caseName, jfr.summary("", 12), "whole JVM");
    ChangelakeBenchmark.recordProfile(
        caseName,
        jfr.summary("org.apache.kafka.connect.runtime.AbstractWorkerSourceTask", 12),
        "task thread");
    ChangelakeBenchmark.recordProfile(
        caseName, jfr.summary("io.changelake.source.ReadAhead", 12), "read-ahead thread");
    ChangelakeBenchmark.recordProfile(
        caseName,
        jfr.summary("org.apache.kafka.clients.producer.internals.Sender", 12),
        "producer I/O thread");
  }

  /**
   * Sends {@code count} records to {@code target}, cycling through the first {@code sampleSize}
   * records of {@code source} (held in memory so reading does not count), and waits until the topic
   * holds them, seen as the source's end is.
   */
  Run plainProducer(String source, String target, long count, int sampleSize) {
    loader.createTopics(List.of(target), 1);
    List<ConsumerRecord<byte[], byte[]>> sample = readSample(source, sampleSize);
    if (sample.isEmpty()) {
      throw new IllegalStateException("no records in " + source + " to send again");
    }
    try (KafkaProducer<byte[], byte[]> producer = loader.producer()) {
      // connected and the topic's metadata known before the clock starts, as the source task's
      // producer is by the time it sends
      producer.partitionsFor(target);
      System.gc(); // as before the source's runs
      Map<Long, Long> threads0 = CpuClock.threadCpuBaseline();
      Map<String, Long> vm0 = CpuClock.vmThreadCpuNanos();
      Map<String, Long> gc0 = CpuClock.gcCounts();
      long sender0 = CpuClock.currentThreadCpuNanos();
      long cpu0 = CpuClock.processCpuNanos();
      long t0 = System.nanoTime();
      for (long i = 0; i < count; i++) {
        ConsumerRecord<byte[], byte[]> r = sample.get((int) (i % sample.size()));
        producer.send(new ProducerRecord<>(target, r.key(), r.value()));
      }
      // the end is seen as the source's is, by the topic's end offset polled at the same interval:
      // flush() would stop this clock at the last acknowledgement while the source's runs on to
      // the next poll (25 ms on average, some 2-4% of a 50,000-event run)
      awaitEndOffset(target, count, "plain producer", END_POLL_MS);
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpu = (CpuClock.processCpuNanos() - cpu0) / 1e9;
      Map<String, Double> threads =
          new HashMap<>(
              threadCpu(
                  PLAIN_THREADS, "", threads0, vm0, List.of(Thread.currentThread().getName())));
      threads.put("sending thread", (CpuClock.currentThreadCpuNanos() - sender0) / 1e9);
      return new Run(count, seconds, cpu, 0, threads, collectionsSince(gc0));
    }
  }

  /** Collections since {@code baseline}, by collector. */
  private static Map<String, Long> collectionsSince(Map<String, Long> baseline) {
    Map<String, Long> since = new HashMap<>();
    CpuClock.gcCounts().forEach((gc, n) -> since.put(gc, n - baseline.getOrDefault(gc, 0L)));
    return since;
  }

  /** How many of the other busiest Java threads a run names (the rest stays unattributed). */
  private static final int OTHER_THREADS = 6;

  /**
   * CPU seconds since {@code baseline} of each group of threads, by the group's label; then, since
   * {@code vmBaseline}, the JVM's own GC and JIT threads, and the {@value #OTHER_THREADS} busiest
   * other Java threads (broker, worker) by name, but those of {@code excluded} (counted apart).
   */
  private static Map<String, Double> threadCpu(
      Map<String, String> groups,
      String connector,
      Map<Long, Long> baseline,
      Map<String, Long> vmBaseline,
      List<String> excluded) {
    Map<String, Double> cpu = new HashMap<>();
    List<String> prefixes = new ArrayList<>(excluded);
    groups.forEach(
        (label, prefix) -> {
          String named = String.format(prefix, connector);
          prefixes.add(named);
          cpu.put(label, CpuClock.threadCpuNanos(named, baseline) / 1e9);
        });
    CpuClock.vmThreadCpuNanos()
        .forEach(
            (kind, nanos) ->
                cpu.put("JVM " + kind, (nanos - vmBaseline.getOrDefault(kind, 0L)) / 1e9));
    CpuClock.otherThreadCpuNanos(prefixes, baseline).entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(OTHER_THREADS)
        .forEach(e -> cpu.put("thread " + e.getKey(), e.getValue() / 1e9));
    return cpu;
  }

  // fine while waiting for the first record (the clock starts there), coarser for the end
  private static final long FIRST_RECORD_POLL_MS = 10;
  private static final long END_POLL_MS = 50;

  /** Waits until {@code topic} holds at least {@code expected} records; returns how many. */
  private long awaitEndOffset(String topic, long expected, String connector, long pollMillis) {
    long deadline = System.nanoTime() + Duration.ofSeconds(Math.max(180, expected / 500)).toNanos();
    while (true) {
      long end =
          runner.endOffsets(List.of(topic)).values().stream().mapToLong(Long::longValue).sum();
      if (end >= expected) {
        return end;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            connector
                + " published "
                + end
                + " of "
                + expected
                + " records to "
                + topic
                + "\n"
                + platform.describe(connector));
      }
      SinkRunner.sleep(pollMillis);
    }
  }

  private List<ConsumerRecord<byte[], byte[]>> readSample(String topic, int max) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    TopicStart.read(platform.bootstrapServers(), topic, max, records::add);
    return records;
  }
}
