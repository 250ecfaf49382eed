package io.changelake.sink.decode;

import org.apache.kafka.common.TopicPartition;

/**
 * Where a record came from in Kafka.
 *
 * @param topic the topic as the record carries it (after SMTs), used for routing
 * @param partition the record's partition as the consumer saw it
 * @param offset its offset
 * @param consumed the partition Connect consumed and commits offsets for (before SMTs renamed it)
 * @param timestamp the Kafka record timestamp, or -1
 */
public record Origin(
    String topic, int partition, long offset, TopicPartition consumed, long timestamp) {

  /** {@code topic-partition@offset}, for error messages. */
  public String describe() {
    return consumed.topic() + "-" + consumed.partition() + "@" + offset;
  }
}
