package io.changelake.e2e.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the first records of a one-partition topic as bytes, for the baselines that send a source's
 * records again (the plain producer, and the do-nothing source's plugin, whose jar holds this
 * class).
 */
final class TopicStart {
  private TopicStart() {}

  /**
   * Hands {@code each} the first {@code max} records of {@code topic} (fewer if it holds fewer).
   */
  static void read(
      String bootstrapServers,
      String topic,
      int max,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      // counted, not compared by offset: a transactional source's commit markers take offsets too
      int handed = 0;
      while (handed < max && consumer.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (handed < max) {
            each.accept(r);
            handed++;
          }
        }
      }
    }
  }
}
