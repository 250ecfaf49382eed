package io.changelake.schema;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.types.RowType;

/**
 * Which table column each record field is written to.
 *
 * @param columnByField record field name -> target column name (usually the same name; a lenient
 *     column after an incompatible type change)
 * @param droppedFields record fields that are not written (unknown to the table, or ignored by the
 *     policy)
 */
public record FieldMapping(Map<String, String> columnByField, Set<String> droppedFields) {

  public FieldMapping {
    columnByField = Map.copyOf(columnByField);
    droppedFields = Set.copyOf(droppedFields);
  }

  /**
   * The mapping used when no evolution plan says otherwise: a field goes to the column of the same
   * name when its values convert to that column's type, else to the lenient column for its type if
   * the table has one (see {@link io.changelake.schema.evolution.LenientColumns}); fields without a
   * column are dropped.
   *
   * @throws ValueConversionException if a field has a same-named column of an incompatible type and
   *     no lenient column
   */
  public static FieldMapping byName(Schema structSchema, RowType target) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }
}
