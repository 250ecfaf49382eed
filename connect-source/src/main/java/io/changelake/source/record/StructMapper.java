package io.changelake.source.record;

import io.changelake.schema.ConnectMapping;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

/**
 * Turns rows of one row type into structs of chosen columns; built once per schema so field lookups
 * are not repeated per row.
 */
final class StructMapper {
  private final Schema schema;
  private final List<Column> columns;

  private record Column(DataField field, InternalRow.FieldGetter getter, Field connectField) {}

  /**
   * @param rowType the type rows are read with
   * @param names the columns to keep, in output order
   * @param schemaName name of the struct schema
   * @param optional whether the struct itself is optional
   */
  StructMapper(RowType rowType, List<String> names, String schemaName, boolean optional) {
    List<DataField> fields = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    for (String name : names) {
      int position = rowType.getFieldIndex(name);
      if (position < 0) {
        throw new IllegalArgumentException(
            "Column '" + name + "' is not in row type " + rowType.getFieldNames());
      }
      fields.add(rowType.getFields().get(position));
      positions.add(position);
    }
    this.schema = ConnectMapping.structOf(schemaName, fields, optional);
    this.columns = new ArrayList<>(fields.size());
    for (int i = 0; i < fields.size(); i++) {
      DataField field = fields.get(i);
      columns.add(
          new Column(
              field,
              InternalRow.createFieldGetter(field.type(), positions.get(i)),
              schema.field(field.name())));
    }
  }

  Schema schema() {
    return schema;
  }

  /** The struct of {@code row}, or null for a null row. */
  Struct toStruct(InternalRow row) {
    if (row == null) {
      return null;
    }
    Struct struct = new Struct(schema);
    Object[] values = UncheckedStructs.values(struct);
    for (Column column : columns) {
      Object value = column.getter().getFieldOrNull(row);
      Field target = column.connectField();
      // by Field, not by name: no lookup per value
      UncheckedStructs.put(
          struct, values, target, ConnectMapping.valueOf(column.field(), target.schema(), value));
    }
    return struct;
  }

  /**
   * Puts the columns of {@code row} into {@code target}'s {@code fields}, the i-th column into the
   * i-th field (a struct of another schema with the same columns, e.g. all optional), without an
   * intermediate struct.
   */
  void putInto(InternalRow row, Struct target, List<Field> fields) {
    Object[] values = UncheckedStructs.values(target);
    for (int i = 0; i < columns.size(); i++) {
      Column column = columns.get(i);
      Field field = fields.get(i);
      Object value = column.getter().getFieldOrNull(row);
      UncheckedStructs.put(
          target, values, field, ConnectMapping.valueOf(column.field(), field.schema(), value));
    }
  }
}
