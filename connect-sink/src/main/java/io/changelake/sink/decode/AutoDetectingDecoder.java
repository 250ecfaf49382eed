package io.changelake.sink.decode;

import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/** Decodes Debezium envelopes and flattened rows alike, telling them apart by the value schema. */
public final class AutoDetectingDecoder implements EnvelopeDecoder {
  private final DebeziumEnvelopeDecoder envelopes = new DebeziumEnvelopeDecoder();
  private final FlattenedDecoder flattened;

  public AutoDetectingDecoder(FlattenedDecoder flattened) {
    this.flattened = flattened;
  }

  @Override
  public ChangeEvent decode(SinkRecord record) {
    if (record.value() instanceof Struct value
        && DebeziumEnvelopeDecoder.isEnvelope(value.schema())) {
      return envelopes.decode(record);
    }
    return flattened.decode(record);
  }
}
