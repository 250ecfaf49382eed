package io.changelake.sink.decode;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/** Decodes Debezium envelopes and flattened rows alike, telling them apart by the value schema. */
public final class AutoDetectingDecoder implements EnvelopeDecoder {
  private final DebeziumEnvelopeDecoder envelopes = new DebeziumEnvelopeDecoder();
  private final FlattenedDecoder flattened;

  // per partition, the key of the envelope delete just decoded: the tombstone Debezium sends after
  // it changes nothing
  private final Map<TopicPartition, Struct> envelopeDeleteKeys = new HashMap<>();

  public AutoDetectingDecoder(FlattenedDecoder flattened) {
    this.flattened = flattened;
  }

  /**
   * A tombstone has no value to tell its shape by. Right after an envelope delete of the same key
   * it is Debezium's follow-up tombstone and changes nothing; otherwise (a flattened stream, or the
   * first record after a restart) it is decoded as a flattened delete: applying a delete that was
   * applied already changes nothing either, while ignoring a flattened stream's delete would keep
   * the row for good.
   */
  @Override
  public ChangeEvent decode(SinkRecord record, Origin origin) {
    TopicPartition partition = origin.consumed();
    Struct deletedKey = envelopeDeleteKeys.remove(partition);
    if (record.value() == null) {
      if (deletedKey != null && deletedKey.equals(record.key())) {
        return envelopes.decode(record, origin);
      }
      return flattened.decode(record, origin);
    }
    if (record.value() instanceof Struct value
        && DebeziumEnvelopeDecoder.isEnvelope(value.schema())) {
      ChangeEvent event = envelopes.decode(record, origin);
      if (event instanceof ChangeEvent.RowChange change
          && change.isDelete()
          && record.key() instanceof Struct key) {
        envelopeDeleteKeys.put(partition, key);
      }
      return event;
    }
    return flattened.decode(record, origin);
  }
}
