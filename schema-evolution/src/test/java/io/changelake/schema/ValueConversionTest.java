package io.changelake.schema;

import static io.changelake.schema.TypeMappingTest.decimal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.data.Bits;
import io.debezium.data.EnumSet;
import io.debezium.data.Json;
import io.debezium.data.Uuid;
import io.debezium.data.VariableScaleDecimal;
import io.debezium.data.geometry.Geometry;
import io.debezium.time.Date;
import io.debezium.time.Interval;
import io.debezium.time.IsoDate;
import io.debezium.time.IsoTime;
import io.debezium.time.IsoTimestamp;
import io.debezium.time.MicroDuration;
import io.debezium.time.MicroTime;
import io.debezium.time.MicroTimestamp;
import io.debezium.time.NanoTime;
import io.debezium.time.NanoTimestamp;
import io.debezium.time.Time;
import io.debezium.time.Timestamp;
import io.debezium.time.Year;
import io.debezium.time.ZonedTime;
import io.debezium.time.ZonedTimestamp;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every value representation Debezium emits, converted into the column of its mapped type (and into
 * wider or narrower columns): the expected internal Paimon value is exact, so nothing is lost.
 */
class ValueConversionTest {

  private static final LocalDateTime TS = LocalDateTime.of(2024, 1, 2, 3, 4, 5, 123_456_789);
  private static final long EPOCH_SECONDS = TS.toEpochSecond(ZoneOffset.UTC);

  static Stream<Arguments> lossless() {
    byte[] wkb = {1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, -16, 63};
    Struct geometry = Geometry.createValue(Geometry.schema(), wkb, 4326);
    GenericRow geometryRow = GenericRow.of(wkb, 4326);
    Schema intArray = SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build();
    Schema hstore = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build();
    Map<String, String> hstoreValue = new LinkedHashMap<>();
    hstoreValue.put("a", "1");
    hstoreValue.put("b", null);
    Map<Object, Object> hstoreInternal = new LinkedHashMap<>();
    hstoreInternal.put(str("a"), str("1"));
    hstoreInternal.put(str("b"), null);
    BigInteger huge =
        new BigInteger("123456789012345678901234567890123456789012345678901234567890");
    return Stream.of(
        row("INT8", Schema.INT8_SCHEMA, (byte) -7, (byte) -7),
        row("INT16", Schema.INT16_SCHEMA, (short) 300, (short) 300),
        row("INT32", Schema.INT32_SCHEMA, Integer.MIN_VALUE, Integer.MIN_VALUE),
        row("INT64", Schema.INT64_SCHEMA, Long.MAX_VALUE, Long.MAX_VALUE),
        row("FLOAT32", Schema.FLOAT32_SCHEMA, 1.5f, 1.5f),
        row("FLOAT64 NaN", Schema.FLOAT64_SCHEMA, Double.NaN, Double.NaN),
        row("BOOLEAN", Schema.BOOLEAN_SCHEMA, true, true),
        row("STRING unicode", Schema.STRING_SCHEMA, "zürich 東京 🚀", str("zürich 東京 🚀")),
        row("BYTES byte[]", Schema.BYTES_SCHEMA, new byte[] {0, -1, 2}, new byte[] {0, -1, 2}),
        row(
            "BYTES ByteBuffer (Avro converter)",
            Schema.BYTES_SCHEMA,
            ByteBuffer.wrap(new byte[] {9, 8}),
            new byte[] {9, 8}),
        row(
            "Decimal(10,2)",
            decimal(2, "10"),
            new BigDecimal("-12345678.91"),
            Decimal.fromBigDecimal(new BigDecimal("-12345678.91"), 10, 2)),
        row(
            "Decimal(50,10) -> exact string",
            decimal(10, "50"),
            new BigDecimal("1234567890123456789012345678901234567890.0123456789"),
            str("1234567890123456789012345678901234567890.0123456789")),
        row(
            "Decimal(3,-2) negative scale",
            decimal(-2, "3"),
            new BigDecimal("1.23E+4"),
            Decimal.fromBigDecimal(new BigDecimal("12300"), 5, 0)),
        row(
            "VariableScaleDecimal",
            VariableScaleDecimal.schema(),
            VariableScaleDecimal.fromLogical(
                VariableScaleDecimal.schema(), new BigDecimal("-0.000123")),
            str("-0.000123")),
        row(
            "VariableScaleDecimal beyond 38 digits",
            VariableScaleDecimal.schema(),
            VariableScaleDecimal.fromLogical(
                VariableScaleDecimal.schema(), new BigDecimal(huge, 20)),
            str(new BigDecimal(huge, 20).toPlainString())),
        row(
            "connect Date",
            org.apache.kafka.connect.data.Date.SCHEMA,
            java.util.Date.from(Instant.parse("1969-07-20T00:00:00Z")),
            (int) LocalDate.of(1969, 7, 20).toEpochDay()),
        row("debezium Date", Date.schema(), 19724, 19724),
        row(
            "IsoDate",
            IsoDate.schema(),
            "2024-01-02Z",
            (int) LocalDate.of(2024, 1, 2).toEpochDay()),
        row(
            "connect Time",
            org.apache.kafka.connect.data.Time.SCHEMA,
            new java.util.Date(45_296_123L),
            45_296_123),
        row("debezium Time", Time.schema(), 45_296_123, 45_296_123),
        row("MicroTime", MicroTime.schema(), 45_296_123_456L, str("12:34:56.123456")),
        row(
            "MicroTime MySQL beyond 24h",
            MicroTime.schema(),
            3_020_399_000_000L,
            str("838:59:59.000000")),
        row("MicroTime MySQL negative", MicroTime.schema(), -1L, str("-00:00:00.000001")),
        row("NanoTime", NanoTime.schema(), 45_296_123_456_789L, str("12:34:56.123456789")),
        row("IsoTime", IsoTime.schema(), "12:34:56.123456Z", str("12:34:56.123456Z")),
        row(
            "connect Timestamp",
            org.apache.kafka.connect.data.Timestamp.SCHEMA,
            new java.util.Date(EPOCH_SECONDS * 1000 + 123),
            ts(TS.withNano(123_000_000))),
        row(
            "debezium Timestamp",
            Timestamp.schema(),
            EPOCH_SECONDS * 1000 + 123,
            ts(TS.withNano(123_000_000))),
        row(
            "MicroTimestamp",
            MicroTimestamp.schema(),
            EPOCH_SECONDS * 1_000_000 + 123_456,
            ts(TS.withNano(123_456_000))),
        row(
            "MicroTimestamp before 1970",
            MicroTimestamp.schema(),
            -1L,
            ts(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000))),
        row(
            "NanoTimestamp",
            NanoTimestamp.schema(),
            EPOCH_SECONDS * 1_000_000_000 + 123_456_789,
            ts(TS)),
        row(
            "NanoTimestamp before 1970",
            NanoTimestamp.schema(),
            -1L,
            ts(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999))),
        row(
            "IsoTimestamp",
            IsoTimestamp.schema(),
            "2024-01-02T03:04:05.123456Z",
            ts(TS.withNano(123_456_000))),
        row(
            "ZonedTimestamp at the same instant",
            ZonedTimestamp.schema(),
            "2024-01-02T05:04:05.123456+02:00",
            org.apache.paimon.data.Timestamp.fromInstant(
                OffsetDateTime.of(TS.withNano(123_456_000), ZoneOffset.UTC).toInstant())),
        row(
            "ZonedTimestamp UTC without fraction",
            ZonedTimestamp.schema(),
            "2024-01-02T03:04:05Z",
            org.apache.paimon.data.Timestamp.fromInstant(
                OffsetDateTime.of(TS.withNano(0), ZoneOffset.UTC).toInstant())),
        row("ZonedTime", ZonedTime.schema(), "03:04:05.1234Z", str("03:04:05.1234Z")),
        row("Year", Year.schema(), 2024, 2024),
        row("MicroDuration", MicroDuration.schema(), 2_592_000_000_000L, 2_592_000_000_000L),
        row("Interval", Interval.schema(), "P1Y2M3DT4H5M6.5S", str("P1Y2M3DT4H5M6.5S")),
        row("Json", Json.schema(), "{\"a\": [1, 2.50]}", str("{\"a\": [1, 2.50]}")),
        row(
            "Uuid",
            Uuid.schema(),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            str("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
        row("EnumSet", EnumSet.schema("a,b,c"), "a,c", str("a,c")),
        row("Bits", Bits.schema(12), new byte[] {1, 8}, new byte[] {1, 8}),
        row("Geometry", Geometry.schema(), geometry, geometryRow),
        row(
            "INT[] with null element",
            intArray,
            Arrays.asList(1, null, 3),
            new GenericArray(new Object[] {1, null, 3})),
        row("HSTORE map", hstore, hstoreValue, new GenericMap(hstoreInternal)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lossless")
  void convertsIntoItsMappedType(String description, Schema schema, Object value, Object expected) {
    Object actual = convertOne(schema, value, TypeMapping.toPaimon(schema));
    assertThat(normalize(actual)).isEqualTo(normalize(expected));
  }

  static Stream<Arguments> intoOtherColumns() {
    return Stream.of(
        row(
            "Decimal(18,0) into BIGINT",
            decimal(0, "18"),
            new BigDecimal("-999999999999999999"),
            DataTypes.BIGINT(),
            -999_999_999_999_999_999L),
        row("INT32 into BIGINT", Schema.INT32_SCHEMA, 7, DataTypes.BIGINT(), 7L),
        row("INT64 into INT when it fits", Schema.INT64_SCHEMA, -7L, DataTypes.INT(), -7),
        row(
            "INT16 into TINYINT when it fits",
            Schema.INT16_SCHEMA,
            (short) 100,
            DataTypes.TINYINT(),
            (byte) 100),
        row(
            "INT32 into DECIMAL(12,2)",
            Schema.INT32_SCHEMA,
            42,
            DataTypes.DECIMAL(12, 2),
            Decimal.fromBigDecimal(new BigDecimal("42.00"), 12, 2)),
        row(
            "Decimal(10,2) into DECIMAL(14,4)",
            decimal(2, "10"),
            new BigDecimal("1.50"),
            DataTypes.DECIMAL(14, 4),
            Decimal.fromBigDecimal(new BigDecimal("1.5000"), 14, 4)),
        row(
            "Decimal(14,4) into DECIMAL(10,2) when exact",
            decimal(4, "14"),
            new BigDecimal("1.5000"),
            DataTypes.DECIMAL(10, 2),
            Decimal.fromBigDecimal(new BigDecimal("1.50"), 10, 2)),
        row("FLOAT32 into DOUBLE", Schema.FLOAT32_SCHEMA, 0.1f, DataTypes.DOUBLE(), (double) 0.1f),
        row("FLOAT64 into FLOAT when exact", Schema.FLOAT64_SCHEMA, 0.5d, DataTypes.FLOAT(), 0.5f),
        row(
            "MicroTimestamp into TIMESTAMP(9)",
            MicroTimestamp.schema(),
            1_000_001L,
            DataTypes.TIMESTAMP(9),
            org.apache.paimon.data.Timestamp.fromEpochMillis(1000, 1000)),
        row(
            "Timestamp into TIMESTAMP(6)",
            Timestamp.schema(),
            1001L,
            DataTypes.TIMESTAMP(6),
            org.apache.paimon.data.Timestamp.fromEpochMillis(1001)),
        row(
            "STRING into VARCHAR(5)",
            Schema.STRING_SCHEMA,
            "héllo",
            DataTypes.VARCHAR(5),
            str("héllo")),
        row(
            "BYTES into VARBINARY(4)",
            Schema.BYTES_SCHEMA,
            new byte[] {1, 2},
            DataTypes.VARBINARY(4),
            new byte[] {1, 2}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("intoOtherColumns")
  void convertsIntoWiderAndFittingNarrowerColumns(
      String description, Schema schema, Object value, DataType column, Object expected) {
    assertThat(convertOne(schema, value, column)).isEqualTo(expected);
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        row(
            "INT64 beyond INT",
            Schema.INT64_SCHEMA,
            5_000_000_000L,
            DataTypes.INT(),
            "outside the column's range"),
        row(
            "Decimal losing decimal places",
            decimal(4, "14"),
            new BigDecimal("1.2345"),
            DataTypes.DECIMAL(10, 2),
            "more decimal places"),
        row(
            "Decimal too many digits",
            decimal(0, "20"),
            new BigDecimal("123456789012"),
            DataTypes.DECIMAL(10, 0),
            "more digits"),
        row(
            "FLOAT64 without FLOAT representation",
            Schema.FLOAT64_SCHEMA,
            0.1d,
            DataTypes.FLOAT(),
            "no exact FLOAT"),
        row(
            "NanoTimestamp into TIMESTAMP(6) with nanos",
            NanoTimestamp.schema(),
            1L,
            DataTypes.TIMESTAMP(6),
            "more fractional digits"),
        row(
            "STRING longer than VARCHAR(3)",
            Schema.STRING_SCHEMA,
            "abcd",
            DataTypes.VARCHAR(3),
            "exceed the column length"),
        row(
            "ZonedTimestamp 'infinity'",
            ZonedTimestamp.schema(),
            "infinity",
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
            "not an ISO-8601"),
        row(
            "debezium Time outside one day (MySQL)",
            Time.schema(),
            90_000_000,
            DataTypes.TIME(3),
            "adaptive_time_microseconds"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void refusesValuesThatWouldNotSurvive(
      String description, Schema schema, Object value, DataType column, String reason) {
    assertThatThrownBy(() -> convertOne(schema, value, column))
        .isInstanceOf(ValueConversionException.class)
        .hasMessageContaining("'f'")
        .hasMessageContaining(schema.type().toString())
        .hasMessageContaining(column.copy(true).toString())
        .hasMessageContaining(reason);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lossless")
  void everyLosslessValueAlsoSurvivesANullableWrapper(
      String description, Schema schema, Object value, Object expected) {
    // the same field as optional, as Debezium emits nullable columns, and a null value
    Schema optional = optional(schema);
    Object optionalValue = value;
    if (value instanceof Struct struct) {
      Struct copy = new Struct(optional);
      optional.fields().forEach(f -> copy.put(f.name(), struct.getWithoutDefault(f.name())));
      optionalValue = copy;
    }
    assertThat(normalize(convertOne(optional, optionalValue, TypeMapping.toPaimon(optional))))
        .isEqualTo(normalize(expected));
    assertThat(convertOne(optional, null, TypeMapping.toPaimon(optional))).isNull();
  }

  static Stream<Arguments> texts() {
    return Stream.of(
        Arguments.of("ASCII", "Customer 42 Example-Name"),
        Arguments.of("empty", ""),
        Arguments.of("Latin-1", "Müller, Straße 5, café"),
        Arguments.of("CJK", "東京都千代田区"),
        Arguments.of("supplementary (emoji)", "ok \uD83D\uDE00 done"),
        Arguments.of("unpaired high surrogate inside", "a\uD83Db"),
        Arguments.of("unpaired high surrogate at the end", "ab\uD83D"),
        Arguments.of("unpaired low surrogate", "a\uDE00b"),
        Arguments.of("NUL and controls", "a\u0000b\tc\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("texts")
  void aStringColumnHoldsTheBytesPaimonItselfWouldEncode(String description, String text) {
    Object converted = convertOne(Schema.STRING_SCHEMA, text, DataTypes.STRING());
    // BinaryString equality compares the UTF-8 bytes
    assertThat(converted).isEqualTo(str(text));
  }

  static Object convertOne(Schema fieldSchema, Object value, DataType column) {
    Schema struct = SchemaBuilder.struct().field("f", fieldSchema).build();
    Struct record = new Struct(struct);
    if (value != null) {
      record.put("f", value);
    }
    RowType target = RowType.of(new DataType[] {column}, new String[] {"f"});
    GenericRow row = RowConverter.compile(struct, target).convert(record, RowKind.INSERT).row();
    return row.getField(0);
  }

  private static Schema optional(Schema schema) {
    SchemaBuilder builder =
        switch (schema.type()) {
          case ARRAY -> SchemaBuilder.array(schema.valueSchema());
          case MAP -> SchemaBuilder.map(schema.keySchema(), schema.valueSchema());
          case STRUCT -> {
            SchemaBuilder b = SchemaBuilder.struct();
            schema.fields().forEach(f -> b.field(f.name(), f.schema()));
            yield b;
          }
          default -> SchemaBuilder.type(schema.type());
        };
    builder.name(schema.name()).version(schema.version()).optional();
    if (schema.parameters() != null) {
      builder.parameters(schema.parameters());
    }
    return builder.build();
  }

  /** Paimon's containers compare by identity; compare their contents. */
  static Object normalize(Object value) {
    if (value instanceof InternalArray array && value instanceof GenericArray generic) {
      return Arrays.asList(generic.toObjectArray()).stream()
          .map(ValueConversionTest::normalize)
          .toList();
    }
    if (value instanceof InternalMap && value instanceof GenericMap map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      InternalArray keys = map.keyArray();
      for (int i = 0; i < map.size(); i++) {
        Object key = ((GenericArray) keys).toObjectArray()[i];
        out.put(normalize(key), normalize(map.get(key)));
      }
      return out;
    }
    if (value instanceof InternalRow row && value instanceof GenericRow generic) {
      Object[] fields = new Object[row.getFieldCount()];
      for (int i = 0; i < fields.length; i++) {
        fields[i] = normalize(generic.getField(i));
      }
      return List.of(Arrays.stream(fields).map(f -> f == null ? "<null>" : f).toArray());
    }
    if (value instanceof byte[] bytes) {
      return Arrays.toString(bytes);
    }
    return value;
  }

  private static BinaryString str(String s) {
    return BinaryString.fromString(s);
  }

  private static org.apache.paimon.data.Timestamp ts(LocalDateTime local) {
    return org.apache.paimon.data.Timestamp.fromLocalDateTime(local);
  }

  private static Arguments row(Object... values) {
    return Arguments.of(values);
  }
}
