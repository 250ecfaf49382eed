package io.changelake.e2e.bench;

import io.changelake.testkit.connect.ConnectPlatform;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The Changelake source publishing a table (start position 'full': every row as a read event)
 * against a plain producer sending the very same records, measured in the same way: from start
 * until the topic holds them all. The source runs with JsonConverter and with the caching converter
 * (same bytes on the topic).
 */
final class SourceThroughput {

  /** One measured run. */
  record Run(long events, double seconds, double cpuSeconds) {}

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
    String topic = topicPrefix + "." + table;
    loader.createTopics(List.of(topic), 1);
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.changelake.source.ChangelakeSourceConnector");
    c.put("tasks.max", "1");
    c.put("paimon.warehouse", warehouse.toUri().toString());
    c.put("tables", database + "." + table);
    c.put("start.position", "full");
    c.put("topic.name.format", topicPrefix + ".${table}");
    c.put("topic.creation.default.replication.factor", "1");
    c.put("topic.creation.default.partitions", "1");
    TopicLoader.throughputSettings()
        .forEach((key, value) -> c.put("producer.override." + key, value));
    c.put("key.converter", converter.className);
    c.put("key.converter.schemas.enable", "true");
    c.put("value.converter", converter.className);
    c.put("value.converter.schemas.enable", "true");
    JfrProfile jfr = profileDir == null ? null : new JfrProfile(profileDir.resolve(name + ".jfr"));
    long cpu0 = CpuClock.processCpuNanos();
    long t0 = System.nanoTime();
    platform.cluster().configureConnector(name, c);
    try {
      awaitEndOffset(topic, rows, name);
      Run run =
          new Run(rows, (System.nanoTime() - t0) / 1e9, (CpuClock.processCpuNanos() - cpu0) / 1e9);
      if (jfr != null) {
        jfr.stop();
        ChangelakeBenchmark.recordProfile(
            "changelake source / " + converter.label,
            jfr.summary("org.apache.kafka.connect.runtime.AbstractWorkerSourceTask", 12),
            "task thread");
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
   * Sends {@code count} records to {@code target}, cycling through the first records of {@code
   * source} (held in memory so reading does not count).
   */
  Run plainProducer(String source, String target, long count, int sampleSize) {
    loader.createTopics(List.of(target), 1);
    List<ConsumerRecord<byte[], byte[]>> sample = readSample(source, sampleSize);
    if (sample.isEmpty()) {
      throw new IllegalStateException("no records in " + source + " to send again");
    }
    long cpu0 = CpuClock.processCpuNanos();
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = loader.producer()) {
      for (long i = 0; i < count; i++) {
        ConsumerRecord<byte[], byte[]> r = sample.get((int) (i % sample.size()));
        producer.send(new ProducerRecord<>(target, r.key(), r.value()));
      }
      producer.flush();
    }
    return new Run(
        count, (System.nanoTime() - t0) / 1e9, (CpuClock.processCpuNanos() - cpu0) / 1e9);
  }

  private void awaitEndOffset(String topic, long expected, String connector) {
    long deadline = System.nanoTime() + Duration.ofSeconds(Math.max(180, expected / 500)).toNanos();
    while (true) {
      long end =
          runner.endOffsets(List.of(topic)).values().stream().mapToLong(Long::longValue).sum();
      if (end >= expected) {
        return;
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
      SinkRunner.sleep(100);
    }
  }

  private List<ConsumerRecord<byte[], byte[]>> readSample(String topic, int max) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (records.size() < max && consumer.position(tp) < end) {
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
    }
    return records.size() > max ? records.subList(0, max) : records;
  }
}
