package io.changelake.sink.decode;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/** Decodes Debezium envelopes and flattened rows alike, telling them apart by the value schema. */
public final class AutoDetectingDecoder implements EnvelopeDecoder {
  private final DebeziumEnvelopeDecoder envelopes = new DebeziumEnvelopeDecoder();
  private final FlattenedDecoder flattened;

  public AutoDetectingDecoder(FlattenedDecoder flattened) {
    this.flattened = flattened;
  }

  // the shape last seen per topic, for tombstones, which have no value to tell by
  private final Map<String, EnvelopeDecoder> lastSeen = new HashMap<>();

  /**
   * Tombstones mean nothing after a Debezium envelope delete but are the delete itself in a
   * flattened stream: they are decoded like the topic's previous record, and like an envelope's
   * when the topic has shown no record yet (a flattened stream whose deletes are tombstones should
   * therefore say input.format=flattened).
   */
  @Override
  public ChangeEvent decode(SinkRecord record) {
    if (record.value() == null) {
      return lastSeen.getOrDefault(record.topic(), envelopes).decode(record);
    }
    EnvelopeDecoder decoder =
        record.value() instanceof Struct value && DebeziumEnvelopeDecoder.isEnvelope(value.schema())
            ? envelopes
            : flattened;
    lastSeen.put(record.topic(), decoder);
    return decoder.decode(record);
  }
}
