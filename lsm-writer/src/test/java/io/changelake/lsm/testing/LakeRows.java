package io.changelake.lsm.testing;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Rows between plain Java values and Paimon, for assertions: build rows with {@link #insert} and
 * friends from {@code String}, {@code Integer}, {@code Long}, {@code Double}, {@code Boolean},
 * {@code BigDecimal}, {@code LocalDateTime} and {@code byte[]}; read a table back with {@link
 * #read} as lists of the same Java types (strings as {@code String}), sorted so that comparisons do
 * not depend on file order. Dates, times, arrays, maps and nested rows stay Paimon's values here;
 * {@link LakeTableReader} (same scan) gives them as engines show them, by column name.
 */
public final class LakeRows {
  private LakeRows() {}

  /** An insert ({@code +I}). */
  public static GenericRow insert(Object... values) {
    return row(RowKind.INSERT, values);
  }

  /** An update's new image ({@code +U}). */
  public static GenericRow update(Object... values) {
    return row(RowKind.UPDATE_AFTER, values);
  }

  /** A delete ({@code -D}); for primary-key tables only the key columns matter. */
  public static GenericRow delete(Object... values) {
    return row(RowKind.DELETE, values);
  }

  /** A row of any kind. */
  public static GenericRow row(RowKind kind, Object... values) {
    Object[] converted = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      converted[i] = toPaimon(values[i]);
    }
    return GenericRow.ofKind(kind, converted);
  }

  /** The current rows of {@code table} (merged by primary key), sorted by their text form. */
  public static List<List<Object>> read(Table table) {
    RowType rowType = table.rowType();
    List<List<Object>> rows;
    try {
      rows = new ArrayList<>(LakeTableReader.scan(table, row -> toJava(row, rowType)));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read table " + table.name(), e);
    }
    rows.sort(Comparator.comparing(Object::toString));
    return rows;
  }

  /** A row as Java values, in column order. */
  public static List<Object> toJava(InternalRow row, RowType rowType) {
    List<Object> values = new ArrayList<>(rowType.getFieldCount());
    for (int i = 0; i < rowType.getFieldCount(); i++) {
      DataType type = rowType.getTypeAt(i);
      Object value = InternalRow.createFieldGetter(type, i).getFieldOrNull(row);
      values.add(toJava(value));
    }
    return values;
  }

  /** Plain Java values as a list, for {@code containsExactly(...)} style assertions. */
  public static List<Object> values(Object... values) {
    return Arrays.asList(values);
  }

  private static Object toJava(Object value) {
    if (value instanceof BinaryString string) {
      return string.toString();
    }
    if (value instanceof Decimal decimal) {
      return decimal.toBigDecimal();
    }
    if (value instanceof Timestamp timestamp) {
      return timestamp.toLocalDateTime();
    }
    return value;
  }

  private static Object toPaimon(Object value) {
    if (value instanceof String string) {
      return BinaryString.fromString(string);
    }
    if (value instanceof BigDecimal decimal) {
      return Decimal.fromBigDecimal(decimal, decimal.precision(), decimal.scale());
    }
    if (value instanceof LocalDateTime time) {
      return Timestamp.fromLocalDateTime(time);
    }
    return value;
  }
}
