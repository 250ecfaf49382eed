package io.changelake.source.record;

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
            .name(topic + ".Envelope")
            .field("before", rows.schema())
            .field("after", rows.schema())
            .field("source", SourceInfo.SCHEMA)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public Struct value(Op op, InternalRow before, InternalRow after, SourceInfo source, long tsMs) {
    return new Struct(schema)
        .put("before", rows.toStruct(before))
        .put("after", rows.toStruct(after))
        .put("source", source.toStruct())
        .put("op", op.code())
        .put("ts_ms", tsMs);
  }
}
