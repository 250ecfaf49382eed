package io.changelake.source.record;

import io.changelake.schema.debezium.DebeziumOp;
import java.util.List;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.paimon.data.InternalRow;

/**
 * The row itself (the old row for deletes) plus an operation field. A truncate has no row: its
 * value holds null in every column and {@code t} in the operation field, so the columns are all
 * optional here (also those of the primary key, which keys carry as required).
 */
record FlatFormat(
    StructMapper rows,
    Schema schema,
    // the value's fields of the row's columns, in the row schema's order, and of the operation
    List<Field> columns,
    Field op)
    implements ValueFormat {

  static FlatFormat of(String topic, StructMapper rows, String opField) {
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
      builder.field(field.name(), optional(field.schema()));
    }
    Schema schema = builder.field(opField, Schema.STRING_SCHEMA).build();
    return new FlatFormat(
        rows,
        schema,
        schema.fields().subList(0, rows.schema().fields().size()),
        schema.field(opField));
  }

  @Override
  public Struct value(
      DebeziumOp operation, InternalRow before, InternalRow after, Struct source, Long tsMs) {
    Struct value = new Struct(schema);
    InternalRow row = after != null ? after : before;
    if (row != null) {
      rows.putInto(row, value, columns);
    }
    UncheckedStructs.put(value, op, operation.code());
    return value;
  }

  /** {@code schema} as an optional schema, the same otherwise. */
  private static Schema optional(Schema schema) {
    if (schema.isOptional()) {
      return schema;
    }
    return new ConnectSchema(
        schema.type(),
        true,
        schema.defaultValue(),
        schema.name(),
        schema.version(),
        schema.doc(),
        schema.parameters(),
        schema.type() == Schema.Type.STRUCT ? schema.fields() : null,
        schema.type() == Schema.Type.MAP ? schema.keySchema() : null,
        schema.type() == Schema.Type.MAP || schema.type() == Schema.Type.ARRAY
            ? schema.valueSchema()
            : null);
  }
}
