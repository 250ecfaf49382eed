package io.changelake.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.data.Bits;
import io.debezium.data.Enum;
import io.debezium.data.EnumSet;
import io.debezium.data.Json;
import io.debezium.data.TsVector;
import io.debezium.data.Uuid;
import io.debezium.data.VariableScaleDecimal;
import io.debezium.data.Xml;
import io.debezium.data.geometry.Geography;
import io.debezium.data.geometry.Geometry;
import io.debezium.data.geometry.Point;
import io.debezium.data.vector.DoubleVector;
import io.debezium.data.vector.FloatVector;
import io.debezium.data.vector.SparseDoubleVector;
import io.debezium.jdbc.TemporalPrecisionMode;
import io.debezium.time.Interval;
import io.debezium.time.MicroDuration;
import io.debezium.time.NanoDuration;
import io.debezium.time.Year;
import io.debezium.time.ZonedTime;
import io.debezium.time.ZonedTimestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Connect schema Debezium emits for PostgreSQL and MySQL/MariaDB, built with Debezium's own
 * schema builders, and its Paimon type.
 */
public class TypeMappingTest {

  static Stream<Arguments> primitives() {
    return Stream.of(
        row("INT8 (MySQL TINYINT via Avro connect.type)", Schema.INT8_SCHEMA, DataTypes.TINYINT()),
        row("INT16 (SMALLINT, MySQL TINYINT)", Schema.INT16_SCHEMA, DataTypes.SMALLINT()),
        row("INT32 (INTEGER, MEDIUMINT)", Schema.INT32_SCHEMA, DataTypes.INT()),
        row("INT64 (BIGINT, OID, INT UNSIGNED)", Schema.INT64_SCHEMA, DataTypes.BIGINT()),
        row("FLOAT32 (REAL)", Schema.FLOAT32_SCHEMA, DataTypes.FLOAT()),
        row(
            "FLOAT64 (DOUBLE, decimal.handling.mode=double)",
            Schema.FLOAT64_SCHEMA,
            DataTypes.DOUBLE()),
        row("BOOLEAN (BOOLEAN, BIT(1))", Schema.BOOLEAN_SCHEMA, DataTypes.BOOLEAN()),
        row(
            "STRING (VARCHAR, TEXT, decimal.handling.mode=string, inet, ranges)",
            Schema.STRING_SCHEMA,
            DataTypes.STRING()),
        row(
            "BYTES (BYTEA, BLOB, binary.handling.mode=bytes)",
            Schema.BYTES_SCHEMA,
            DataTypes.BYTES()),
        row("optional INT32", Schema.OPTIONAL_INT32_SCHEMA, DataTypes.INT()),
        row(
            "VARCHAR(20) with column.propagate.source.type",
            sourceString("VARCHAR", "20"),
            DataTypes.VARCHAR(20)),
        row(
            "PG varchar(20) with column.propagate.source.type",
            sourceString("varchar", "20"),
            DataTypes.VARCHAR(20)),
        row(
            "PG char(3) (bpchar) with column.propagate.source.type",
            sourceString("BPCHAR", "3"),
            DataTypes.CHAR(3)),
        row("PG varchar without length", sourceString("VARCHAR", "2147483647"), DataTypes.STRING()),
        row(
            "TEXT with column.propagate.source.type",
            sourceString("TEXT", "2147483647"),
            DataTypes.STRING()),
        row("optional STRING", Schema.OPTIONAL_STRING_SCHEMA, DataTypes.STRING()));
  }

  static Stream<Arguments> decimals() {
    return Stream.of(
        row("Decimal NUMERIC(10,2) precise", decimal(2, "10"), DataTypes.DECIMAL(10, 2)),
        row("Decimal NUMERIC(38,0)", decimal(0, "38"), DataTypes.DECIMAL(38, 0)),
        row("Decimal MySQL BIGINT UNSIGNED precise", decimal(0, "20"), DataTypes.DECIMAL(20, 0)),
        row(
            "Decimal NUMERIC(3,5): scale above precision",
            decimal(5, "3"),
            DataTypes.DECIMAL(5, 5)),
        row("Decimal NUMERIC(3,-2): negative scale", decimal(-2, "3"), DataTypes.DECIMAL(5, 0)),
        row(
            "Decimal NUMERIC(50,10): wider than Paimon -> exact string",
            decimal(10, "50"),
            DataTypes.STRING()),
        row(
            "Decimal without precision parameter (PG money)",
            decimal(2, null),
            DataTypes.DECIMAL(38, 2)),
        row("Decimal NUMERIC(64,2) -> exact string", decimal(2, "64"), DataTypes.STRING()),
        row(
            "VariableScaleDecimal NUMERIC precise -> exact string",
            VariableScaleDecimal.schema(),
            DataTypes.STRING()),
        row(
            "VariableScaleDecimal optional",
            VariableScaleDecimal.optionalSchema(),
            DataTypes.STRING()));
  }

  /** Every time.precision.mode of Debezium 3.6 for DATE, TIME(p) and TIMESTAMP(p). */
  static Stream<Arguments> temporal() {
    List<Arguments> rows = new ArrayList<>();
    for (TemporalPrecisionMode mode : TemporalPrecisionMode.values()) {
      rows.add(row(mode + " DATE", mode.getDateBuilder().build(), DataTypes.DATE()));
      for (int p : new int[] {0, 3, 6}) {
        rows.add(row(mode + " TIME(" + p + ")", mode.getTimeBuilder(p).build(), time(mode, p)));
        rows.add(
            row(
                mode + " TIMESTAMP(" + p + ")",
                mode.getTimestampBuilder(p).build(),
                timestamp(mode, p)));
      }
    }
    rows.add(
        row(
            "TIMESTAMPTZ / MySQL TIMESTAMP",
            ZonedTimestamp.schema(),
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)));
    rows.add(row("TIMETZ", ZonedTime.schema(), DataTypes.STRING()));
    rows.add(row("MySQL YEAR", Year.schema(), DataTypes.INT()));
    rows.add(row("INTERVAL numeric", MicroDuration.schema(), DataTypes.BIGINT()));
    rows.add(row("INTERVAL nanoseconds", NanoDuration.schema(), DataTypes.BIGINT()));
    rows.add(row("INTERVAL interval.handling.mode=string", Interval.schema(), DataTypes.STRING()));
    return rows.stream();
  }

  static Stream<Arguments> semantic() {
    Schema geometry = Geometry.schema();
    return Stream.of(
        row("JSON/JSONB", Json.schema(), DataTypes.STRING()),
        row("UUID", Uuid.schema(), DataTypes.STRING()),
        row("XML", Xml.schema(), DataTypes.STRING()),
        row("ENUM", Enum.schema("a,b"), DataTypes.STRING()),
        row("MySQL SET", EnumSet.schema("a,b"), DataTypes.STRING()),
        row("TSVECTOR", TsVector.builder().build(), DataTypes.STRING()),
        row("BIT(n) / BIT VARYING", Bits.schema(10), DataTypes.BYTES()),
        row(
            "PostGIS/MySQL GEOMETRY",
            geometry,
            DataTypes.ROW(
                    DataTypes.FIELD(0, "wkb", DataTypes.BYTES().notNull()),
                    DataTypes.FIELD(1, "srid", DataTypes.INT()))
                .notNull()),
        row(
            "GEOGRAPHY",
            Geography.schema(),
            DataTypes.ROW(
                    DataTypes.FIELD(0, "wkb", DataTypes.BYTES().notNull()),
                    DataTypes.FIELD(1, "srid", DataTypes.INT()))
                .notNull()),
        row(
            "POINT",
            Point.builder().build(),
            DataTypes.ROW(
                    DataTypes.FIELD(0, "x", DataTypes.DOUBLE().notNull()),
                    DataTypes.FIELD(1, "y", DataTypes.DOUBLE().notNull()),
                    DataTypes.FIELD(2, "wkb", DataTypes.BYTES()),
                    DataTypes.FIELD(3, "srid", DataTypes.INT()))
                .notNull()),
        row(
            "pgvector VECTOR",
            DoubleVector.schema(),
            DataTypes.ARRAY(DataTypes.DOUBLE().notNull()).notNull()),
        row(
            "pgvector HALFVEC",
            FloatVector.schema(),
            DataTypes.ARRAY(DataTypes.FLOAT().notNull()).notNull()),
        row(
            "pgvector SPARSEVEC",
            SparseDoubleVector.schema(),
            DataTypes.ROW(
                    DataTypes.FIELD(0, "dimensions", DataTypes.SMALLINT().notNull()),
                    DataTypes.FIELD(
                        1,
                        "vector",
                        DataTypes.MAP(DataTypes.SMALLINT().notNull(), DataTypes.DOUBLE().notNull())
                            .notNull()))
                .notNull()),
        row(
            "INT[] array",
            SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build(),
            DataTypes.ARRAY(DataTypes.INT())),
        row(
            "TEXT[][] nested array",
            SchemaBuilder.array(SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build()).build(),
            DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.STRING()).notNull()).notNull()),
        row(
            "HSTORE hstore.handling.mode=map",
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA)
                .optional()
                .build(),
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.STRING())),
        row(
            "MAP with optional keys (keys become NOT NULL)",
            SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT64_SCHEMA).build(),
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.BIGINT().notNull()).notNull()),
        row(
            "array of decimals",
            SchemaBuilder.array(decimal(2, "12")).build(),
            DataTypes.ARRAY(DataTypes.DECIMAL(12, 2).notNull()).notNull()),
        row(
            "nested struct (ROW)",
            SchemaBuilder.struct()
                .name("addr")
                .optional()
                .field("street", Schema.STRING_SCHEMA)
                .field("since", io.debezium.time.MicroTimestamp.builder().optional().build())
                .build(),
            DataTypes.ROW(
                DataTypes.FIELD(0, "street", DataTypes.STRING().notNull()),
                DataTypes.FIELD(1, "since", DataTypes.TIMESTAMP(6)))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"primitives", "decimals", "temporal", "semantic"})
  void mapsEveryDebeziumSchema(String description, Schema schema, DataType expected) {
    DataType expectedWithNullability = expected.copy(schema.isOptional());
    assertThat(TypeMapping.toPaimon(schema).asSQLString())
        .isEqualTo(expectedWithNullability.asSQLString());
  }

  /** Schemas as an Avro converter rebuilds them (see also AvroConverterTest). */
  @Test
  void avroConvertedSchemasMapLikeTheirJsonTwins() {
    // Avro carries INT8/INT16 as int with connect.type: without it they arrive as INT32
    assertThat(TypeMapping.toPaimon(Schema.INT32_SCHEMA)).isEqualTo(DataTypes.INT().notNull());
    // Avro decimals always carry a precision parameter
    Schema avroDecimal =
        Decimal.builder(3).parameter("connect.decimal.precision", "12").optional().build();
    assertThat(TypeMapping.toPaimon(avroDecimal)).isEqualTo(DataTypes.DECIMAL(12, 3));
    // connect.name keeps Debezium's semantic names; parameters ride along unchanged
    Schema avroMicroTs =
        SchemaBuilder.int64()
            .name("io.debezium.time.MicroTimestamp")
            .version(1)
            .optional()
            .parameter("__debezium.source.column.type", "TIMESTAMP")
            .build();
    assertThat(TypeMapping.toPaimon(avroMicroTs)).isEqualTo(DataTypes.TIMESTAMP(6));
  }

  @Test
  void rowTypeKeepsFieldOrderNamesAndNullability() {
    Schema value =
        SchemaBuilder.struct()
            .name("db.public.t.Value")
            .field("id", Schema.INT32_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("price", decimal(2, "10"))
            .build();
    RowType rowType = TypeMapping.toRowType(value);
    assertThat(rowType.getFieldNames()).containsExactly("id", "name", "price");
    assertThat(rowType.getTypeAt(0)).isEqualTo(DataTypes.INT().notNull());
    assertThat(rowType.getTypeAt(1)).isEqualTo(DataTypes.STRING());
    assertThat(rowType.getTypeAt(2)).isEqualTo(DataTypes.DECIMAL(10, 2).notNull());
  }

  @Test
  void rowTypeOfANonStructNamesTheSchema() {
    assertThatThrownBy(() -> TypeMapping.toRowType(Schema.STRING_SCHEMA))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("STRUCT")
        .hasMessageContaining("STRING");
  }

  private static DataType time(TemporalPrecisionMode mode, int p) {
    return switch (mode) {
      case ADAPTIVE -> p <= 3 ? DataTypes.TIME(3) : DataTypes.STRING();
      case CONNECT -> DataTypes.TIME(3);
      default -> DataTypes.STRING();
    };
  }

  private static DataType timestamp(TemporalPrecisionMode mode, int p) {
    return switch (mode) {
      case ADAPTIVE, ADAPTIVE_TIME_MICROSECONDS ->
          p <= 3 ? DataTypes.TIMESTAMP(3) : DataTypes.TIMESTAMP(6);
      case CONNECT -> DataTypes.TIMESTAMP(3);
      case ISOSTRING, MICROSECONDS -> DataTypes.TIMESTAMP(6);
      case NANOSECONDS -> DataTypes.TIMESTAMP(9);
    };
  }

  public static Schema sourceString(String type, String length) {
    return SchemaBuilder.string()
        .parameter("__debezium.source.column.type", type)
        .parameter("__debezium.source.column.length", length)
        .build();
  }

  static Schema decimal(int scale, String precision) {
    SchemaBuilder builder = Decimal.builder(scale);
    if (precision != null) {
      builder.parameter("connect.decimal.precision", precision);
    }
    return builder.build();
  }

  private static Arguments row(String description, Schema schema, DataType expected) {
    return Arguments.of(description, schema, expected);
  }
}
