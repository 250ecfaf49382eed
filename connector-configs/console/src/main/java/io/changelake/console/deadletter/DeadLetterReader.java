package io.changelake.console.deadletter;

import io.changelake.configs.files.Secrets;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the newest records of dead-letter topics without joining a group (assign, never commit):
 * looking at dead letters must not move anyone's offsets.
 */
public final class DeadLetterReader {
  private static final int PREVIEW_CHARS = 300;
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

  private final String bootstrapServers;

  public DeadLetterReader(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * The newest {@code max} records of {@code topic}, newest first.
   *
   * @param configOf the raw config of a connector by name, to mask secrets a reason may quote
   */
  public List<DeadLetter> newest(
      String topic, int max, Function<String, Map<String, String>> configOf) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "changelake-console-dead-letters");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<DeadLetter> letters = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, READ_TIMEOUT).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      if (partitions.isEmpty()) {
        return List.of();
      }
      consumer.assign(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, READ_TIMEOUT);
      Map<TopicPartition, Long> begins = consumer.beginningOffsets(partitions, READ_TIMEOUT);
      for (TopicPartition tp : partitions) {
        consumer.seek(tp, Math.max(begins.get(tp), ends.get(tp) - max));
      }
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          letters.add(letter(r, configOf));
        }
      }
    }
    letters.sort(Comparator.comparingLong(DeadLetter::timestamp).reversed());
    return letters.subList(0, Math.min(max, letters.size()));
  }

  private static DeadLetter letter(
      ConsumerRecord<byte[], byte[]> r, Function<String, Map<String, String>> configOf) {
    String connector = header(r, "__connect.errors.connector.name");
    String reason = header(r, "__connect.errors.exception.message");
    Map<String, String> config = connector == null ? Map.of() : configOf.apply(connector);
    String value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
    if (value != null && value.length() > PREVIEW_CHARS) {
      value = value.substring(0, PREVIEW_CHARS) + "…";
    }
    String partition = header(r, "__connect.errors.partition");
    String offset = header(r, "__connect.errors.offset");
    return new DeadLetter(
        r.topic(),
        r.partition(),
        r.offset(),
        r.timestamp(),
        connector,
        header(r, "__connect.errors.topic"),
        partition == null ? null : Integer.valueOf(partition),
        offset == null ? null : Long.valueOf(offset),
        header(r, "__connect.errors.stage"),
        header(r, "__connect.errors.exception.class.name"),
        Secrets.redact(reason, config),
        Secrets.redact(value, config));
  }

  private static String header(ConsumerRecord<?, ?> r, String key) {
    Header header = r.headers().lastHeader(key);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }
}
