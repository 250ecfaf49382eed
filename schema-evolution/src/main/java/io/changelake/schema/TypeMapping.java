package io.changelake.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.paimon.types.CharType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.VarCharType;

/**
 * The one place deciding which Paimon type holds a Kafka Connect schema: Connect primitives and
 * logical types, Debezium's semantic types ({@code io.debezium.time.*}, {@code io.debezium.data.*},
 * geometries, vectors) for PostgreSQL and MySQL/MariaDB under every {@code time.precision.mode} and
 * {@code decimal.handling.mode}, arrays, maps and nested structs, whether they came through the
 * JSON or an Avro converter. The full table, with the value conversions {@link RowConverter}
 * applies, is in the module README.
 *
 * <p>Choices worth knowing: Paimon's TIME holds milliseconds, so micro/nano times (which in MySQL
 * may also be negative or beyond 24h) become fixed-format strings; decimals wider than Paimon's 38
 * digits and Debezium's variable-scale decimals become plain decimal strings (exact, never
 * rounded); zoned timestamps become {@code TIMESTAMP_LTZ(6)} at the same instant.
 */
public final class TypeMapping {

  /** Widest decimal Paimon holds. */
  static final int MAX_DECIMAL_PRECISION = DecimalType.MAX_PRECISION;

  private TypeMapping() {}

  /** The Paimon type for {@code schema}; nullable exactly when the schema is optional. */
  public static DataType toPaimon(Schema schema) {
    return nonNull(schema).copy(schema.isOptional());
  }

  /**
   * The Paimon row type for a Connect struct schema, one column per field in field order.
   *
   * @throws IllegalArgumentException if {@code structSchema} is not a struct
   */
  public static RowType toRowType(Schema structSchema) {
    if (structSchema == null || structSchema.type() != Schema.Type.STRUCT) {
      throw new IllegalArgumentException(
          "Expected a STRUCT schema, got " + ValueConversionException.describe(structSchema));
    }
    List<DataField> fields = new ArrayList<>();
    for (Field field : structSchema.fields()) {
      fields.add(
          new DataField(
              field.index(),
              field.name(),
              toPaimon(field.schema()),
              SemanticTypes.description(field.schema())));
    }
    return new RowType(structSchema.isOptional(), fields);
  }

  /** Decimal digits a Connect {@code Decimal} schema needs, as a Paimon decimal if it fits. */
  static DecimalType decimalType(Schema schema) {
    int scale = Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD));
    String declared =
        schema.parameters() == null
            ? null
            : schema.parameters().get(DebeziumTypes.DECIMAL_PRECISION);
    int precision = declared == null ? MAX_DECIMAL_PRECISION : Integer.parseInt(declared);
    // PostgreSQL allows scale > precision (0.00123 in NUMERIC(3,5)) and negative scales
    // (12300 in NUMERIC(3,-2)); Paimon wants 0 <= scale <= precision
    int integerDigits = Math.max(precision - scale, 0);
    int targetScale = Math.max(scale, 0);
    int targetPrecision = Math.max(integerDigits + targetScale, 1);
    if (targetPrecision > MAX_DECIMAL_PRECISION) {
      return null;
    }
    return new DecimalType(targetPrecision, targetScale);
  }

  private static DataType nonNull(Schema schema) {
    String name = schema.name();
    if (name != null) {
      DataType named = named(schema, name);
      if (named != null) {
        return named;
      }
    }
    return switch (schema.type()) {
      case INT8 -> DataTypes.TINYINT();
      case INT16 -> DataTypes.SMALLINT();
      case INT32 -> DataTypes.INT();
      case INT64 -> DataTypes.BIGINT();
      case FLOAT32 -> DataTypes.FLOAT();
      case FLOAT64 -> DataTypes.DOUBLE();
      case BOOLEAN -> DataTypes.BOOLEAN();
      case STRING -> sourceCharacterType(schema);
      case BYTES -> DataTypes.BYTES();
      case ARRAY -> DataTypes.ARRAY(toPaimon(schema.valueSchema()));
      // Paimon map keys cannot be null
      case MAP ->
          DataTypes.MAP(toPaimon(schema.keySchema()).notNull(), toPaimon(schema.valueSchema()));
      case STRUCT -> toRowType(schema);
    };
  }

  /**
   * STRING, or the source column's VARCHAR(n)/CHAR(n) when Debezium propagates it ({@code
   * column.propagate.source.type} / {@code datatype.propagate.source.type}): then a source length
   * change becomes a column widening.
   */
  private static DataType sourceCharacterType(Schema schema) {
    Map<String, String> parameters = schema.parameters();
    if (parameters == null) {
      return DataTypes.STRING();
    }
    String sourceType = parameters.get(DebeziumTypes.SOURCE_COLUMN_TYPE);
    String length = parameters.get(DebeziumTypes.SOURCE_COLUMN_LENGTH);
    if (sourceType == null || length == null) {
      return DataTypes.STRING();
    }
    long n;
    try {
      n = Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      return DataTypes.STRING();
    }
    if (n < 1 || n >= VarCharType.MAX_LENGTH) {
      return DataTypes.STRING();
    }
    return switch (sourceType.trim().toUpperCase(Locale.ROOT)) {
      case "VARCHAR", "CHARACTER VARYING", "NVARCHAR", "VARCHAR2" -> DataTypes.VARCHAR((int) n);
      case "CHAR", "BPCHAR", "CHARACTER", "NCHAR" ->
          n <= CharType.MAX_LENGTH ? DataTypes.CHAR((int) n) : DataTypes.STRING();
      default -> DataTypes.STRING();
    };
  }

  /** Types identified by their schema name; null to fall back to the Connect type. */
  private static DataType named(Schema schema, String name) {
    return switch (name) {
      case Decimal.LOGICAL_NAME -> {
        DecimalType decimal = decimalType(schema);
        yield decimal == null ? DataTypes.STRING() : decimal;
      }
      case Date.LOGICAL_NAME, DebeziumTypes.DATE, DebeziumTypes.ISO_DATE -> DataTypes.DATE();
      case Time.LOGICAL_NAME, DebeziumTypes.TIME -> DataTypes.TIME(3);
      case DebeziumTypes.MICRO_TIME, DebeziumTypes.NANO_TIME, DebeziumTypes.ISO_TIME ->
          DataTypes.STRING();
      case Timestamp.LOGICAL_NAME, DebeziumTypes.TIMESTAMP -> DataTypes.TIMESTAMP(3);
      case DebeziumTypes.MICRO_TIMESTAMP, DebeziumTypes.ISO_TIMESTAMP -> DataTypes.TIMESTAMP(6);
      case DebeziumTypes.NANO_TIMESTAMP -> DataTypes.TIMESTAMP(9);
      case DebeziumTypes.ZONED_TIMESTAMP -> DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6);
      case DebeziumTypes.VARIABLE_SCALE_DECIMAL -> DataTypes.STRING();
      default -> null;
    };
  }
}
