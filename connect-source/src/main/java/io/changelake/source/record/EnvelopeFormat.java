package io.changelake.source.record;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.InternalRow;

/**
 * Debezium's change envelope. Debezium's JDBC sink recognises an envelope by a value schema name
 * containing {@code Envelope}, hence {@code <topic>.Envelope} as Debezium names it.
 */
final class EnvelopeFormat implements ValueFormat {
  private final StructMapper rows;
  private final Schema schema;

  EnvelopeFormat(String topic, StructMapper rows) {
    this.rows = rows;
    this.schema =
        SchemaBuilder.struct()
            .name(topic + EnvelopeFields.ENVELOPE_NAME_SUFFIX)
            .field(EnvelopeFields.BEFORE, rows.schema())
            .field(EnvelopeFields.AFTER, rows.schema())
            .field(EnvelopeFields.SOURCE, SourceInfo.SCHEMA)
            .field(EnvelopeFields.OP, Schema.STRING_SCHEMA)
            .field(EnvelopeFields.TS_MS, Schema.OPTIONAL_INT64_SCHEMA)
            .build();
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public Struct value(
      DebeziumOp op, InternalRow before, InternalRow after, SourceInfo source, long tsMs) {
    return new Struct(schema)
        .put(EnvelopeFields.BEFORE, rows.toStruct(before))
        .put(EnvelopeFields.AFTER, rows.toStruct(after))
        .put(EnvelopeFields.SOURCE, source.toStruct())
        .put(EnvelopeFields.OP, op.code())
        .put(EnvelopeFields.TS_MS, tsMs);
  }
}
