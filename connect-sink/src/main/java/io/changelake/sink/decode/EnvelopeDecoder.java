package io.changelake.sink.decode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Turns a sink record into a change event; one implementation per input shape. Not thread-safe:
 * decoders remember what the record before carried (schemas, source names), so each task has its
 * own.
 */
public interface EnvelopeDecoder {

  /**
   * Decodes a record; throws {@link DecodingException} when the record is not of the expected
   * shape.
   */
  default ChangeEvent decode(SinkRecord record) {
    return decode(record, originOf(record));
  }

  /**
   * Decodes a record whose {@link #originOf origin} the caller has at hand already (the task needs
   * it for every record, also those that fail to decode; building it twice showed in profiles).
   */
  ChangeEvent decode(SinkRecord record, Origin origin);

  /** The origin of any record, also of those that fail to decode. */
  static Origin originOf(SinkRecord record) {
    return originOf(record, null);
  }

  /**
   * As {@link #originOf(SinkRecord)}, with {@code consumed} as the consumed partition when the
   * record is of it: a task hands the origin of the record before, nearly always of the same
   * partition, instead of a new partition object per record.
   */
  static Origin originOf(SinkRecord record, TopicPartition consumed) {
    TopicPartition partition =
        consumed != null
                && consumed.partition() == record.originalKafkaPartition()
                && consumed.topic().equals(record.originalTopic())
            ? consumed
            : new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
    return new Origin(
        record.topic(),
        record.kafkaPartition() == null ? 0 : record.kafkaPartition(),
        record.originalKafkaOffset(),
        partition,
        record.timestamp() == null ? -1 : record.timestamp());
  }
}
