package io.changelake.sink.decode;

import org.apache.kafka.connect.sink.SinkRecord;

/** Turns a sink record into a change event; one implementation per input shape. */
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
    return new Origin(
        record.topic(),
        record.kafkaPartition() == null ? 0 : record.kafkaPartition(),
        record.originalKafkaOffset(),
        new org.apache.kafka.common.TopicPartition(
            record.originalTopic(), record.originalKafkaPartition()),
        record.timestamp() == null ? -1 : record.timestamp());
  }
}
