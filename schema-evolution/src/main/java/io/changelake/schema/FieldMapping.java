package io.changelake.schema;

import io.changelake.schema.evolution.LenientColumns;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.types.DataType;
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
    // keep record field order, for readable logs and errors
    columnByField = Collections.unmodifiableMap(new LinkedHashMap<>(columnByField));
    droppedFields = Collections.unmodifiableSet(new LinkedHashSet<>(droppedFields));
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
    Map<String, String> columns = new LinkedHashMap<>();
    Set<String> dropped = new LinkedHashSet<>();
    for (Field field : structSchema.fields()) {
      DataType own = TypeMapping.toPaimon(field.schema());
      int index = target.getFieldIndex(field.name());
      if (index >= 0 && TypeRules.convertible(own, target.getTypeAt(index))) {
        columns.put(field.name(), field.name());
        continue;
      }
      String lenient = LenientColumns.name(field.name(), own);
      int lenientIndex = target.getFieldIndex(lenient);
      if (lenientIndex >= 0 && TypeRules.convertible(own, target.getTypeAt(lenientIndex))) {
        columns.put(field.name(), lenient);
      } else if (index >= 0) {
        throw new ValueConversionException(
            field.name(),
            field.schema(),
            target.getTypeAt(index),
            "the types are incompatible and the table has no column "
                + lenient
                + " (see schema.evolution.incompatible-type)");
      } else {
        dropped.add(field.name());
      }
    }
    return new FieldMapping(columns, dropped);
  }
}
