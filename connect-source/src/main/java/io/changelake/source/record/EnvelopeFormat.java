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
final class EnvelopeFormat implements ValueFormat {
  private final StructMapper rows;
  private final Schema schema;
  // by Field, not by name: no lookup per record
  private final Field before;
  private final Field after;
  private final Field source;
  private final Field op;
  private final Field tsMs;

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
    this.before = schema.field(EnvelopeFields.BEFORE);
    this.after = schema.field(EnvelopeFields.AFTER);
    this.source = schema.field(EnvelopeFields.SOURCE);
    this.op = schema.field(EnvelopeFields.OP);
    this.tsMs = schema.field(EnvelopeFields.TS_MS);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public Struct value(
      DebeziumOp operation, InternalRow oldRow, InternalRow newRow, Struct sourceInfo, long ts) {
    return new Struct(schema)
        .put(before, rows.toStruct(oldRow))
        .put(after, rows.toStruct(newRow))
        .put(source, sourceInfo)
        .put(op, operation.code())
        .put(tsMs, ts);
  }
}
