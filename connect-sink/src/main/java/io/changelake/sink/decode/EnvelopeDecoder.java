package io.changelake.sink.decode;

import org.apache.kafka.connect.sink.SinkRecord;

/** Turns a sink record into a change event; one implementation per input shape. */
public interface EnvelopeDecoder {

  /**
   * Decodes a record; throws {@link DecodingException} when the record is not of the expected
   * shape.
   */
  ChangeEvent decode(SinkRecord record);

  /** The origin of any record, also of those that fail to decode. */
  static Origin originOf(SinkRecord record) {
    return new Origin(
        record.topic(),
        record.kafkaPartition() == null ? 0 : record.kafkaPartition(),
        record.originalKafkaOffset(),
        new org.apache.kafka.common.TopicPartition(
            record.originalTopic(), record.originalKafkaPartition()),
        record.timestamp() == null ? -1 : record.timestamp());
  }
}
