package io.changelake.schema;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimestampType;

/**
 * The reverse of {@link TypeMapping}: the Kafka Connect schema of a Paimon type, and the Connect
 * value of one of Paimon's internal values. The changelog source emits records with it.
 *
 * <p>Temporal types use the schemas Debezium emits, so Debezium-aware consumers (its JDBC sink, or
 * a Changelake sink reading the topic back) get them at full precision: TIMESTAMP(0..3) is
 * Connect's {@code Timestamp}, (4..6) {@code io.debezium.time.MicroTimestamp}, (7..9) {@code
 * io.debezium.time.NanoTimestamp}; TIMESTAMP WITH LOCAL TIME ZONE is {@code
 * io.debezium.time.ZonedTimestamp} (ISO-8601 in UTC). Decimals carry Debezium's {@code
 * connect.decimal.precision} parameter. Every type {@link TypeMapping} creates comes back through
 * {@link TypeMapping#toPaimon} as itself, except CHAR(n)/VARCHAR(n), which become STRING: a plain
 * Connect string carries no length.
 */
public final class ConnectMapping {

  private ConnectMapping() {}

  /** The Connect schema of a Paimon type; optional exactly when the type is nullable. */
  public static Schema schemaOf(DataType type) {
    SchemaBuilder builder = builderOf(type);
    if (type.isNullable()) {
      builder.optional();
    }
    return builder.build();
  }

  /** A struct schema of {@code fields} in order, named {@code name} (null for none). */
  public static Schema structOf(String name, List<DataField> fields, boolean optional) {
    SchemaBuilder builder = SchemaBuilder.struct();
    if (name != null) {
      builder.name(name);
    }
    for (DataField field : fields) {
      builder.field(field.name(), schemaOf(field));
    }
    if (optional) {
      builder.optional();
    }
    return builder.build();
  }

  /**
   * The Connect schema of a column: the Debezium semantic type stored with it ({@link
   * SemanticTypes}, e.g. {@code io.debezium.data.Uuid} for a STRING column), else that of its type.
   */
  public static Schema schemaOf(DataField field) {
    SchemaBuilder semantic =
        SemanticTypes.of(field).map(n -> semanticBuilder(n, field.type())).orElse(null);
    if (semantic == null) {
      return schemaOf(field.type());
    }
    if (field.type().isNullable()) {
      semantic.optional();
    }
    return semantic.build();
  }

  /** The schema of a semantic type, or null when the column's type cannot carry it. */
  private static SchemaBuilder semanticBuilder(String name, DataType type) {
    boolean string =
        type.getTypeRoot() == DataTypeRoot.VARCHAR || type.getTypeRoot() == DataTypeRoot.CHAR;
    if (SemanticTypes.STRINGS.contains(name) && string) {
      return SchemaBuilder.string().name(name);
    }
    if (name.equals(DebeziumTypes.MICRO_TIME) && string) {
      return SchemaBuilder.int64().name(name);
    }
    return null;
  }

  /**
   * Converts a column's internal value to the value {@link #schemaOf(DataField)} describes: a
   * microsecond time kept as {@code [-]HH:mm:ss.ffffff} becomes Debezium's microseconds again.
   */
  public static Object valueOf(DataField field, Schema schema, Object value) {
    if (value != null
        && DebeziumTypes.MICRO_TIME.equals(schema.name())
        && schema.type() == Schema.Type.INT64) {
      return microsOfTime(textOf(value));
    }
    return valueOf(field.type(), schema, value);
  }

  /**
   * The text of a string value. Paimon's {@code BinaryString.toString} copies the bytes into a
   * per-thread buffer, decodes them into another and copies the chars into the string; decoding the
   * bytes where they lie makes the same string (Paimon writes only well-formed UTF-8, and reads
   * anything else with the JDK's decoder too) in one pass, without the thread-local lookups.
   */
  static String textOf(Object value) {
    if (value instanceof BinaryString text) {
      MemorySegment[] segments = text.getSegments();
      if (segments.length == 1 && segments[0].getHeapMemory() != null) {
        return new String(
            segments[0].getHeapMemory(),
            text.getOffset(),
            text.getSizeInBytes(),
            StandardCharsets.UTF_8);
      }
    }
    return value.toString();
  }

  /** Microseconds of a time the sink wrote as {@code [-]HH:mm:ss.ffffff} (hours may pass 24). */
  static long microsOfTime(String text) {
    boolean negative = text.startsWith("-");
    String[] parts = (negative ? text.substring(1) : text).split("[:.]");
    if (parts.length != 4 || parts[3].length() != 6) {
      throw new DataException(
          "'" + text + "' is not a time as [-]HH:mm:ss.ffffff (io.debezium.time.MicroTime)");
    }
    long micros =
        ((Long.parseLong(parts[0]) * 60 + Long.parseLong(parts[1])) * 60 + Long.parseLong(parts[2]))
                * 1_000_000L
            + Long.parseLong(parts[3]);
    return negative ? -micros : micros;
  }

  private static SchemaBuilder builderOf(DataType type) {
    return switch (type.getTypeRoot()) {
      case BOOLEAN -> SchemaBuilder.bool();
      case TINYINT -> SchemaBuilder.int8();
      case SMALLINT -> SchemaBuilder.int16();
      case INTEGER -> SchemaBuilder.int32();
      case BIGINT -> SchemaBuilder.int64();
      case FLOAT -> SchemaBuilder.float32();
      case DOUBLE -> SchemaBuilder.float64();
      case CHAR, VARCHAR -> SchemaBuilder.string();
      case BINARY, VARBINARY -> SchemaBuilder.bytes();
      case DECIMAL -> {
        DecimalType decimal = (DecimalType) type;
        yield Decimal.builder(decimal.getScale())
            .parameter(DebeziumTypes.DECIMAL_PRECISION, Integer.toString(decimal.getPrecision()));
      }
      case DATE -> Date.builder();
      // Paimon keeps TIME as milliseconds of the day whatever its precision
      case TIME_WITHOUT_TIME_ZONE -> Time.builder();
      case TIMESTAMP_WITHOUT_TIME_ZONE -> {
        int precision = ((TimestampType) type).getPrecision();
        if (precision <= 3) {
          yield Timestamp.builder();
        }
        yield SchemaBuilder.int64()
            .name(precision <= 6 ? DebeziumTypes.MICRO_TIMESTAMP : DebeziumTypes.NANO_TIMESTAMP);
      }
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          SchemaBuilder.string().name(DebeziumTypes.ZONED_TIMESTAMP);
      case ARRAY -> SchemaBuilder.array(schemaOf(((ArrayType) type).getElementType()));
      case MULTISET ->
          SchemaBuilder.map(schemaOf(((MultisetType) type).getElementType()), Schema.INT32_SCHEMA);
      case MAP -> {
        MapType map = (MapType) type;
        yield SchemaBuilder.map(schemaOf(map.getKeyType()), schemaOf(map.getValueType()));
      }
      case ROW -> {
        SchemaBuilder struct = SchemaBuilder.struct();
        for (DataField field : ((RowType) type).getFields()) {
          struct.field(field.name(), schemaOf(field));
        }
        yield struct;
      }
      case VARIANT, BLOB, VECTOR ->
          throw new DataException(
              "Paimon type " + type + " has no Kafka Connect counterpart; leave the column out");
    };
  }

  /**
   * Converts one of Paimon's internal values (as {@link InternalRow.FieldGetter} returns them) of
   * {@code type} to the value {@link #schemaOf(DataType)} describes.
   */
  public static Object valueOf(DataType type, Schema schema, Object value) {
    if (value == null) {
      return null;
    }
    return switch (type.getTypeRoot()) {
      case BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE -> value;
      case CHAR, VARCHAR -> textOf(value);
      case BINARY, VARBINARY -> value;
      case DECIMAL -> ((org.apache.paimon.data.Decimal) value).toBigDecimal();
      case DATE -> new java.util.Date((Integer) value * 86_400_000L);
      case TIME_WITHOUT_TIME_ZONE -> new java.util.Date((Integer) value);
      case TIMESTAMP_WITHOUT_TIME_ZONE -> {
        org.apache.paimon.data.Timestamp ts = (org.apache.paimon.data.Timestamp) value;
        int precision = ((TimestampType) type).getPrecision();
        if (precision <= 3) {
          yield new java.util.Date(ts.getMillisecond());
        }
        if (precision <= 6) {
          yield ts.toMicros();
        }
        yield Math.addExact(
            Math.multiplyExact(ts.getMillisecond(), 1_000_000L), ts.getNanoOfMillisecond());
      }
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
              ((org.apache.paimon.data.Timestamp) value).toInstant().atOffset(ZoneOffset.UTC));
      case ARRAY -> {
        DataType elementType = ((ArrayType) type).getElementType();
        yield listOf((InternalArray) value, elementType, schema.valueSchema());
      }
      case MULTISET -> {
        DataType elementType = ((MultisetType) type).getElementType();
        InternalMap map = (InternalMap) value;
        List<Object> keys = listOf(map.keyArray(), elementType, schema.keySchema());
        InternalArray counts = map.valueArray();
        Map<Object, Object> result = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
          result.put(keys.get(i), counts.isNullAt(i) ? null : counts.getInt(i));
        }
        yield result;
      }
      case MAP -> {
        MapType mapType = (MapType) type;
        InternalMap map = (InternalMap) value;
        List<Object> keys = listOf(map.keyArray(), mapType.getKeyType(), schema.keySchema());
        List<Object> values =
            listOf(map.valueArray(), mapType.getValueType(), schema.valueSchema());
        Map<Object, Object> result = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
          result.put(keys.get(i), values.get(i));
        }
        yield result;
      }
      case ROW -> {
        RowType rowType = (RowType) type;
        InternalRow row = (InternalRow) value;
        Struct struct = new Struct(schema);
        for (int i = 0; i < rowType.getFieldCount(); i++) {
          DataField field = rowType.getFields().get(i);
          Object fieldValue = InternalRow.createFieldGetter(field.type(), i).getFieldOrNull(row);
          struct.put(field.name(), valueOf(field, schema.field(field.name()).schema(), fieldValue));
        }
        yield struct;
      }
      case VARIANT, BLOB, VECTOR ->
          throw new DataException("Paimon type " + type + " is not supported");
    };
  }

  private static List<Object> listOf(InternalArray array, DataType elementType, Schema schema) {
    InternalArray.ElementGetter getter = InternalArray.createElementGetter(elementType);
    List<Object> result = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      result.add(valueOf(elementType, schema, getter.getElementOrNull(array, i)));
    }
    return result;
  }
}
