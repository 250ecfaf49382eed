package io.changelake.source.record;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.paimon.data.InternalRow;

/** The row itself (the old row for deletes) plus an operation field. */
final class FlatFormat implements ValueFormat {
  private final StructMapper rows;
  private final String opField;
  private final Schema schema;

  FlatFormat(String topic, StructMapper rows, String opField) {
    this.rows = rows;
    this.opField = opField;
    if (rows.schema().field(opField) != null) {
      throw new ConnectException(
          "Topic "
              + topic
              + ": the table has a column named '"
              + opField
              + "', the flat format's operation field; set flat.op.field to another name");
    }
    SchemaBuilder builder = SchemaBuilder.struct().name(topic + ".Value");
    for (Field field : rows.schema().fields()) {
      builder.field(field.name(), field.schema());
    }
    this.schema = builder.field(opField, Schema.STRING_SCHEMA).build();
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public Struct value(Op op, InternalRow before, InternalRow after, SourceInfo source, long tsMs) {
    Struct row = rows.toStruct(after != null ? after : before);
    Struct value = new Struct(schema);
    for (Field field : rows.schema().fields()) {
      value.put(field.name(), row.get(field));
    }
    return value.put(opField, op.code());
  }
}
