package io.changelake.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.VarCharType;

/**
 * Builds {@link ValueConverter}s: a Connect value is first turned into the internal value of its
 * own Paimon type ({@link TypeMapping}), then, when the column's type differs, checked and cast
 * into it. Every decision is taken while building; converting only runs the chosen steps.
 */
final class ValueConverters {

  private static final long MILLIS_PER_DAY = 86_400_000L;

  private ValueConverters() {}

  /**
   * A converter from values of {@code schema} to the internal representation of {@code target}.
   *
   * @throws ValueConversionException if no value of {@code schema} can go into {@code target}
   */
  static ValueConverter compile(Schema schema, DataType target, String path) {
    DataType natural = TypeMapping.toPaimon(schema);
    if (!TypeRules.convertible(natural, target)) {
      throw new ValueConversionException(
          path, schema, target, "the types are incompatible (" + natural.asSQLString() + ")");
    }
    // containers are converted element by element straight into the target's element types;
    // Debezium structs with their own mapping (VariableScaleDecimal) are scalars here
    if (natural.is(DataTypeRoot.ARRAY)) {
      return array(schema, (ArrayType) target, path);
    }
    if (natural.is(DataTypeRoot.MAP)) {
      return map(schema, (MapType) target, path);
    }
    if (natural.is(DataTypeRoot.ROW)) {
      return struct(schema, (RowType) target, path);
    }
    ValueConverter own = natural(schema, path, natural);
    if (TypeRules.sameRepresentation(natural, target)) {
      return own;
    }
    ValueConverter cast = cast(natural, target, schema, path);
    return value -> cast.convert(own.convert(value));
  }

  private static ValueConverter array(Schema schema, ArrayType target, String path) {
    ValueConverter element = compile(schema.valueSchema(), target.getElementType(), path + "[]");
    return value -> {
      List<?> list = (List<?>) value;
      Object[] converted = new Object[list.size()];
      for (int i = 0; i < converted.length; i++) {
        Object item = list.get(i);
        converted[i] = item == null ? null : element.convert(item);
      }
      return new GenericArray(converted);
    };
  }

  private static ValueConverter map(Schema schema, MapType target, String path) {
    ValueConverter key = compile(schema.keySchema(), target.getKeyType(), path + "{key}");
    ValueConverter val = compile(schema.valueSchema(), target.getValueType(), path + "{value}");
    return value -> {
      Map<?, ?> map = (Map<?, ?>) value;
      Map<Object, Object> converted = new LinkedHashMap<>();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (entry.getKey() == null) {
          throw new ValueConversionException(
              path, schema, target, "map keys cannot be null in Paimon");
        }
        Object v = entry.getValue();
        converted.put(key.convert(entry.getKey()), v == null ? null : val.convert(v));
      }
      return new GenericMap(converted);
    };
  }

  /** Nested struct to nested row, fields matched by name (unknown ones dropped, missing null). */
  private static ValueConverter struct(Schema schema, RowType target, String path) {
    List<DataField> targetFields = target.getFields();
    String[] names = new String[targetFields.size()];
    ValueConverter[] converters = new ValueConverter[targetFields.size()];
    for (int i = 0; i < names.length; i++) {
      DataField targetField = targetFields.get(i);
      Field field = schema.field(targetField.name());
      if (field != null) {
        names[i] = field.name();
        converters[i] =
            compile(field.schema(), targetField.type(), path + "." + targetField.name());
      }
    }
    return value -> {
      Struct struct = (Struct) value;
      GenericRow row = new GenericRow(names.length);
      for (int i = 0; i < names.length; i++) {
        if (names[i] != null) {
          Object v = struct.getWithoutDefault(names[i]);
          row.setField(i, v == null ? null : converters[i].convert(v));
        }
      }
      return row;
    };
  }

  /** Connect value -> internal value of {@code natural} = {@link TypeMapping#toPaimon}. */
  private static ValueConverter natural(Schema schema, String path, DataType natural) {
    String name = schema.name();
    if (name != null) {
      ValueConverter named = named(schema, name, path, natural);
      if (named != null) {
        return named;
      }
    }
    return switch (schema.type()) {
      // a value already of the internal class is kept: boxing it again allocated per value
      case INT8 -> v -> v instanceof Byte ? v : ((Number) v).byteValue();
      case INT16 -> v -> v instanceof Short ? v : ((Number) v).shortValue();
      case INT32 -> v -> v instanceof Integer ? v : ((Number) v).intValue();
      case INT64 -> v -> v instanceof Long ? v : ((Number) v).longValue();
      case FLOAT32 -> v -> v instanceof Float ? v : ((Number) v).floatValue();
      case FLOAT64 -> v -> v instanceof Double ? v : ((Number) v).doubleValue();
      case BOOLEAN -> v -> (Boolean) v;
      case STRING -> v -> utf8(v.toString());
      case BYTES -> ValueConverters::bytes;
      default -> throw new IllegalStateException("containers are compiled structurally: " + schema);
    };
  }

  /**
   * The string as Paimon's {@link BinaryString}, the same bytes as {@link BinaryString#fromString}:
   * both encode unpaired surrogates as '?'. The JDK's encoder copies an ASCII string's bytes at
   * once where Paimon's reads it char by char, which showed in profiles.
   */
  static BinaryString utf8(String s) {
    return BinaryString.fromBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static ValueConverter named(Schema schema, String name, String path, DataType natural) {
    return switch (name) {
      case Decimal.LOGICAL_NAME -> {
        if (natural instanceof DecimalType decimal) {
          yield v -> decimal((BigDecimal) v, decimal, schema, path);
        }
        yield v -> BinaryString.fromString(((BigDecimal) v).toPlainString());
      }
      case DebeziumTypes.VARIABLE_SCALE_DECIMAL ->
          v -> {
            Struct struct = (Struct) v;
            BigDecimal decimal =
                new BigDecimal(
                    new BigInteger(bytes(struct.getWithoutDefault("value"))),
                    ((Number) struct.getWithoutDefault("scale")).intValue());
            return BinaryString.fromString(decimal.toPlainString());
          };
      case Date.LOGICAL_NAME ->
          v -> (int) Math.floorDiv(((java.util.Date) v).getTime(), MILLIS_PER_DAY);
      case DebeziumTypes.DATE -> v -> ((Number) v).intValue();
      case DebeziumTypes.ISO_DATE ->
          v ->
              (int)
                  parse(path, schema, natural, v, DateTimeFormatter.ISO_DATE, LocalDate::from)
                      .toEpochDay();
      case Time.LOGICAL_NAME ->
          v -> (int) Math.floorMod(((java.util.Date) v).getTime(), MILLIS_PER_DAY);
      case DebeziumTypes.TIME ->
          v -> {
            int millis = ((Number) v).intValue();
            if (millis < 0 || millis >= MILLIS_PER_DAY) {
              throw new ValueConversionException(
                  path,
                  schema,
                  natural,
                  millis
                      + " ms is outside one day (MySQL TIME can be); use"
                      + " time.precision.mode=adaptive_time_microseconds to get it as a string");
            }
            return millis;
          };
      case DebeziumTypes.MICRO_TIME -> v -> BinaryString.fromString(time((Long) v, 6));
      case DebeziumTypes.NANO_TIME -> v -> BinaryString.fromString(time((Long) v, 9));
      case DebeziumTypes.ISO_TIME -> v -> BinaryString.fromString(v.toString());
      case org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME ->
          v -> Timestamp.fromEpochMillis(((java.util.Date) v).getTime());
      case DebeziumTypes.TIMESTAMP -> v -> Timestamp.fromEpochMillis(((Number) v).longValue());
      case DebeziumTypes.MICRO_TIMESTAMP -> v -> fromSubMillis(((Number) v).longValue(), 1_000);
      case DebeziumTypes.NANO_TIMESTAMP -> v -> fromSubMillis(((Number) v).longValue(), 1);
      case DebeziumTypes.ISO_TIMESTAMP ->
          v -> {
            LocalDateTime local =
                parse(
                    path, schema, natural, v, DateTimeFormatter.ISO_DATE_TIME, LocalDateTime::from);
            requireMicros(local.getNano(), v, schema, natural, path);
            return Timestamp.fromLocalDateTime(local);
          };
      case DebeziumTypes.ZONED_TIMESTAMP ->
          v -> {
            Instant instant =
                parse(
                        path,
                        schema,
                        natural,
                        v,
                        DateTimeFormatter.ISO_OFFSET_DATE_TIME,
                        OffsetDateTime::from)
                    .toInstant();
            requireMicros(instant.getNano(), v, schema, natural, path);
            return Timestamp.fromInstant(instant);
          };
      default -> null;
    };
  }

  /** Paimon's internal value of a column of type {@code to} from one of type {@code from}. */
  private static ValueConverter cast(DataType from, DataType to, Schema schema, String path) {
    if (TypeRules.integerDigits(from) >= 0 && TypeRules.integerDigits(to) >= 0) {
      return exactNumeric(from, to, schema, path);
    }
    switch (to.getTypeRoot()) {
      case DOUBLE:
        return v -> ((Number) v).doubleValue();
      case FLOAT:
        return v -> {
          double d = ((Number) v).doubleValue();
          float f = (float) d;
          if (f != d && !Double.isNaN(d)) {
            throw new ValueConversionException(
                path, schema, to, d + " has no exact FLOAT representation");
          }
          return f;
        };
      case CHAR:
      case VARCHAR:
        int maxChars = TypeRules.length(to);
        if (maxChars == VarCharType.MAX_LENGTH) {
          return v -> v;
        }
        return v -> {
          int chars = ((BinaryString) v).numChars();
          if (chars > maxChars) {
            throw new ValueConversionException(
                path, schema, to, chars + " characters exceed the column length " + maxChars);
          }
          return v;
        };
      case BINARY:
      case VARBINARY:
        int maxBytes = TypeRules.length(to);
        return v -> {
          int length = ((byte[]) v).length;
          if (length > maxBytes) {
            throw new ValueConversionException(
                path, schema, to, length + " bytes exceed the column length " + maxBytes);
          }
          return v;
        };
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        long nanosUnit = pow10(9 - TypeRules.precision(to));
        return v -> {
          Timestamp ts = (Timestamp) v;
          long nanosOfSecond =
              Math.floorMod(ts.getMillisecond(), 1000L) * 1_000_000L + ts.getNanoOfMillisecond();
          if (nanosOfSecond % nanosUnit != 0) {
            throw new ValueConversionException(
                path, schema, to, ts + " has more fractional digits than the column keeps");
          }
          return ts;
        };
      case TIME_WITHOUT_TIME_ZONE:
        long millisUnit = pow10(Math.max(3 - TypeRules.precision(to), 0));
        return v -> {
          if ((Integer) v % millisUnit != 0) {
            throw new ValueConversionException(
                path, schema, to, v + " ms has more fractional digits than the column keeps");
          }
          return v;
        };
      default:
        return v -> v;
    }
  }

  private static ValueConverter exactNumeric(
      DataType from, DataType to, Schema schema, String path) {
    boolean fromDecimal = from instanceof DecimalType;
    if (to instanceof DecimalType decimal) {
      if (fromDecimal) {
        return v ->
            decimal(((org.apache.paimon.data.Decimal) v).toBigDecimal(), decimal, schema, path);
      }
      return v -> decimal(BigDecimal.valueOf(((Number) v).longValue()), decimal, schema, path);
    }
    long min;
    long max;
    switch (to.getTypeRoot()) {
      case TINYINT -> {
        min = Byte.MIN_VALUE;
        max = Byte.MAX_VALUE;
      }
      case SMALLINT -> {
        min = Short.MIN_VALUE;
        max = Short.MAX_VALUE;
      }
      case INTEGER -> {
        min = Integer.MIN_VALUE;
        max = Integer.MAX_VALUE;
      }
      default -> {
        min = Long.MIN_VALUE;
        max = Long.MAX_VALUE;
      }
    }
    DataTypeRoot root = to.getTypeRoot();
    return v -> {
      long value;
      if (fromDecimal) {
        try {
          value =
              ((org.apache.paimon.data.Decimal) v)
                  .toBigDecimal()
                  .setScale(0, RoundingMode.UNNECESSARY)
                  .longValueExact();
        } catch (ArithmeticException e) {
          throw new ValueConversionException(
              path, schema, to, v + " is not an integer in the column's range", e);
        }
      } else {
        value = ((Number) v).longValue();
      }
      if (value < min || value > max) {
        throw new ValueConversionException(
            path, schema, to, value + " is outside the column's range [" + min + ", " + max + "]");
      }
      return switch (root) {
        case TINYINT -> (byte) value;
        case SMALLINT -> (short) value;
        case INTEGER -> (int) value;
        default -> value;
      };
    };
  }

  private static org.apache.paimon.data.Decimal decimal(
      BigDecimal value, DecimalType type, Schema schema, String path) {
    BigDecimal scaled;
    try {
      scaled = value.setScale(type.getScale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new ValueConversionException(
          path,
          schema,
          type,
          value.toPlainString() + " has more decimal places than the column",
          e);
    }
    org.apache.paimon.data.Decimal decimal =
        org.apache.paimon.data.Decimal.fromBigDecimal(scaled, type.getPrecision(), type.getScale());
    if (decimal == null) {
      throw new ValueConversionException(
          path, schema, type, value.toPlainString() + " has more digits than the column holds");
    }
    return decimal;
  }

  static byte[] bytes(Object value) {
    if (value instanceof byte[] array) {
      return array;
    }
    ByteBuffer buffer = ((ByteBuffer) value).duplicate();
    byte[] copy = new byte[buffer.remaining()];
    buffer.get(copy);
    return copy;
  }

  /** {@code [-]HH:mm:ss.fff...} with {@code digits} fractional digits; hours may exceed 23. */
  static String time(long value, int digits) {
    long unit = pow10(digits);
    long abs = Math.abs(value);
    long seconds = abs / unit;
    return String.format(
        "%s%02d:%02d:%02d.%0" + digits + "d",
        value < 0 ? "-" : "",
        seconds / 3600,
        (seconds / 60) % 60,
        seconds % 60,
        abs % unit);
  }

  private static Timestamp fromSubMillis(long value, long nanosPerUnit) {
    long unitsPerMilli = 1_000_000L / nanosPerUnit;
    return Timestamp.fromEpochMillis(
        Math.floorDiv(value, unitsPerMilli),
        (int) (Math.floorMod(value, unitsPerMilli) * nanosPerUnit));
  }

  private static void requireMicros(
      int nanos, Object value, Schema schema, DataType type, String path) {
    if (nanos % 1000 != 0) {
      throw new ValueConversionException(
          path, schema, type, value + " has nanoseconds; the column keeps microseconds");
    }
  }

  private static <T> T parse(
      String path,
      Schema schema,
      DataType type,
      Object value,
      DateTimeFormatter formatter,
      java.time.temporal.TemporalQuery<T> query) {
    try {
      return formatter.parse(value.toString(), query);
    } catch (DateTimeParseException e) {
      throw new ValueConversionException(
          path, schema, type, "'" + value + "' is not an ISO-8601 value", e);
    }
  }

  private static long pow10(int exponent) {
    long result = 1;
    for (int i = 0; i < exponent; i++) {
      result *= 10;
    }
    return result;
  }
}
