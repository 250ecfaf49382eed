package io.changelake.schema;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Converts Connect {@link Struct}s of one schema into Paimon rows of one table schema. Compile once
 * per (record schema, table row type) pair and reuse: all decisions are taken at compile time.
 *
 * <p>Target columns the record has no field for are null (and reported in {@link
 * ConvertedRow#absent()}); record fields the target does not know are dropped; values are converted
 * as documented in {@link TypeMapping}, also into a wider column type than their own (and, when the
 * policy ignored a widening, into a narrower one as long as the value fits — else {@link
 * ValueConversionException}). A null stays null: field defaults of the Connect schema are not
 * substituted (Debezium puts the column's DEFAULT there, which is not the row's value).
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class RowConverter {

  private final Schema schema;
  private final RowType target;
  private final String[] fieldNames;
  private final Field[] fields;
  private final ValueConverter[] converters;
  private final boolean[] nullable;
  // fields without a default are read by position (Struct.get(Field) substitutes defaults)
  private final boolean[] byPosition;
  // fields whose values can be Debezium's placeholder: strings, bytes, arrays
  private final boolean[] mayBeUnavailable;
  private final BitSet present;
  private final BitSet absent;
  private final String placeholder;
  private final byte[] placeholderBytes;

  // what rows without unavailable values report: shared, as ConvertedRow documents
  private static final BitSet NONE = new BitSet();

  private RowConverter(
      Schema schema, RowType target, FieldMapping mapping, ConversionOptions options) {
    if (schema.type() != Schema.Type.STRUCT) {
      throw new IllegalArgumentException(
          "Expected a STRUCT schema, got " + ValueConversionException.describe(schema));
    }
    this.schema = schema;
    this.target = target;
    Map<String, String> fieldByColumn = new HashMap<>();
    mapping.columnByField().forEach((field, column) -> fieldByColumn.put(column, field));
    List<DataField> columns = target.getFields();
    int n = columns.size();
    fieldNames = new String[n];
    fields = new Field[n];
    converters = new ValueConverter[n];
    nullable = new boolean[n];
    byPosition = new boolean[n];
    mayBeUnavailable = new boolean[n];
    present = new BitSet(n);
    placeholder = options.unavailableValuePlaceholder();
    for (int i = 0; i < n; i++) {
      DataField column = columns.get(i);
      nullable[i] = column.type().isNullable();
      String fieldName = fieldByColumn.get(column.name());
      Field field = fieldName == null ? null : schema.field(fieldName);
      if (field != null) {
        fieldNames[i] = field.name();
        fields[i] = field;
        byPosition[i] = field.schema().defaultValue() == null;
        // Struct.put validated each value against its field's schema: a value of another type
        // cannot be the placeholder
        mayBeUnavailable[i] =
            placeholder != null
                && switch (field.schema().type()) {
                  case STRING, BYTES, ARRAY -> true;
                  default -> false;
                };
        converters[i] = ValueConverters.compile(field.schema(), column.type(), field.name());
        present.set(i);
      }
    }
    absent = (BitSet) present.clone();
    absent.flip(0, n);
    placeholderBytes = placeholder == null ? null : placeholder.getBytes(StandardCharsets.UTF_8);
  }

  /** Compiles with name-based mapping ({@link FieldMapping#byName}) and Debezium's defaults. */
  public static RowConverter compile(Schema structSchema, RowType target) {
    return compile(structSchema, target, ConversionOptions.defaults());
  }

  /** Compiles with name-based mapping ({@link FieldMapping#byName}). */
  public static RowConverter compile(
      Schema structSchema, RowType target, ConversionOptions options) {
    return compile(structSchema, target, FieldMapping.byName(structSchema, target), options);
  }

  /**
   * Compiles with an explicit mapping, e.g. {@link
   * io.changelake.schema.evolution.EvolutionPlan#fieldMapping()}.
   *
   * @throws ValueConversionException if a mapped field's type cannot go into its column
   */
  public static RowConverter compile(
      Schema structSchema, RowType target, FieldMapping mapping, ConversionOptions options) {
    return new RowConverter(structSchema, target, mapping, options);
  }

  /**
   * Converts one record value.
   *
   * @param value a struct of the compiled schema
   * @param kind insert, update or delete
   * @throws ValueConversionException naming the field, its Connect schema and the target type
   */
  public ConvertedRow convert(Struct value, RowKind kind) {
    GenericRow row = new GenericRow(kind, fieldNames.length);
    BitSet unavailable = null;
    for (int i = present.nextSetBit(0); i >= 0; i = present.nextSetBit(i + 1)) {
      // by position where no default can be substituted: a lookup by name per value showed in
      // profiles (a struct of an equal schema has its fields at the same positions)
      Object v = byPosition[i] ? value.get(fields[i]) : value.getWithoutDefault(fieldNames[i]);
      if (v == null) {
        if (!nullable[i]) {
          throw new ValueConversionException(
              fieldNames[i], fields[i].schema(), target.getTypeAt(i), "null for a NOT NULL column");
        }
      } else if (mayBeUnavailable[i] && isUnavailable(v)) {
        if (unavailable == null) {
          unavailable = new BitSet();
        }
        unavailable.set(i);
      } else {
        row.setField(i, convertField(i, v));
      }
    }
    return new ConvertedRow(row, absent, unavailable == null ? NONE : unavailable);
  }

  /** Target columns that some record field is written to. */
  public BitSet presentColumns() {
    return (BitSet) present.clone();
  }

  /** The record schema this converter was compiled for. */
  public Schema schema() {
    return schema;
  }

  /** The table row type this converter was compiled for. */
  public RowType target() {
    return target;
  }

  private Object convertField(int i, Object v) {
    try {
      return converters[i].convert(v);
    } catch (ValueConversionException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ValueConversionException(
          fieldNames[i],
          fields[i].schema(),
          target.getTypeAt(i),
          "unexpected value " + abbreviate(v) + " (" + v.getClass().getName() + "): " + e,
          e);
    }
  }

  /** Debezium's placeholder, as a string, its bytes, or an array holding only it. */
  private boolean isUnavailable(Object v) {
    if (placeholder == null) {
      return false;
    }
    if (v instanceof List<?> list) {
      return list.size() == 1 && list.get(0) != null && isUnavailable(list.get(0));
    }
    if (v instanceof String s) {
      return s.equals(placeholder);
    }
    if (v instanceof byte[] bytes) {
      return Arrays.equals(bytes, placeholderBytes);
    }
    if (v instanceof ByteBuffer buffer) {
      return buffer.remaining() == placeholderBytes.length
          && ByteBuffer.wrap(placeholderBytes).equals(buffer);
    }
    return false;
  }

  private static String abbreviate(Object v) {
    String s = String.valueOf(v);
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }
}
