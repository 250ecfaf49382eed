package io.changelake.source.record;

import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.InternalRow;

/**
 * Debezium's change envelope. Debezium's JDBC sink recognises an envelope by a value schema name
 * containing {@code Envelope}, hence {@code <topic>.Envelope} as Debezium names it.
 */
record EnvelopeFormat(
    StructMapper rows,
    Schema schema,
    // by Field, not by name: no lookup per record
    Field before,
    Field after,
    Field source,
    Field op,
    Field tsMs)
    implements ValueFormat {

  static EnvelopeFormat of(String topic, StructMapper rows) {
    Schema schema =
        SchemaBuilder.struct()
            .name(topic + EnvelopeFields.ENVELOPE_NAME_SUFFIX)
            .field(EnvelopeFields.BEFORE, rows.schema())
            .field(EnvelopeFields.AFTER, rows.schema())
            .field(EnvelopeFields.SOURCE, SourceInfo.SCHEMA)
            .field(EnvelopeFields.OP, Schema.STRING_SCHEMA)
            .field(EnvelopeFields.TS_MS, Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    return new EnvelopeFormat(
        rows,
        schema,
        schema.field(EnvelopeFields.BEFORE),
        schema.field(EnvelopeFields.AFTER),
        schema.field(EnvelopeFields.SOURCE),
        schema.field(EnvelopeFields.OP),
        schema.field(EnvelopeFields.TS_MS));
  }

  @Override
  public Struct value(
      DebeziumOp operation, InternalRow oldRow, InternalRow newRow, Struct sourceInfo, Long ts) {
    Struct value = new Struct(schema);
    Object[] values = UncheckedStructs.values(value);
    UncheckedStructs.put(value, values, before, rows.toStruct(oldRow));
    UncheckedStructs.put(value, values, after, rows.toStruct(newRow));
    UncheckedStructs.put(value, values, source, sourceInfo);
    UncheckedStructs.put(value, values, op, operation.code());
    UncheckedStructs.put(value, values, tsMs, ts);
    return value;
  }
}
