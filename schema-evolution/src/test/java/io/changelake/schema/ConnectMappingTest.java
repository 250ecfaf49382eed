package io.changelake.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConnectMappingTest {

  private static final long INSTANT_MILLIS = 1_700_000_000_123L; // 2023-11-14T22:13:20.123Z

  static Stream<Arguments> mappings() {
    org.apache.paimon.data.Timestamp nanos =
        org.apache.paimon.data.Timestamp.fromEpochMillis(INSTANT_MILLIS, 456_789);
    return Stream.of(
        // paimon type, internal value, connect type, schema name, connect value
        row(DataTypes.BOOLEAN(), true, Schema.Type.BOOLEAN, null, true),
        row(DataTypes.TINYINT(), (byte) 7, Schema.Type.INT8, null, (byte) 7),
        row(DataTypes.SMALLINT(), (short) 300, Schema.Type.INT16, null, (short) 300),
        row(DataTypes.INT(), 70_000, Schema.Type.INT32, null, 70_000),
        row(DataTypes.BIGINT(), 1L << 40, Schema.Type.INT64, null, 1L << 40),
        row(DataTypes.FLOAT(), 1.5f, Schema.Type.FLOAT32, null, 1.5f),
        row(DataTypes.DOUBLE(), 2.25d, Schema.Type.FLOAT64, null, 2.25d),
        row(DataTypes.CHAR(3), BinaryString.fromString("abc"), Schema.Type.STRING, null, "abc"),
        row(
            DataTypes.STRING(),
            BinaryString.fromString("héllo"),
            Schema.Type.STRING,
            null,
            "héllo"),
        row(DataTypes.BYTES(), new byte[] {1, 2}, Schema.Type.BYTES, null, new byte[] {1, 2}),
        row(DataTypes.BINARY(2), new byte[] {3, 4}, Schema.Type.BYTES, null, new byte[] {3, 4}),
        row(
            DataTypes.DECIMAL(10, 2),
            org.apache.paimon.data.Decimal.fromBigDecimal(new BigDecimal("12345678.90"), 10, 2),
            Schema.Type.BYTES,
            Decimal.LOGICAL_NAME,
            new BigDecimal("12345678.90")),
        row(
            DataTypes.DATE(),
            19_000,
            Schema.Type.INT32,
            Date.LOGICAL_NAME,
            new java.util.Date(19_000L * 86_400_000L)),
        row(
            DataTypes.TIME(3),
            3_723_004,
            Schema.Type.INT32,
            Time.LOGICAL_NAME,
            new java.util.Date(3_723_004L)),
        row(
            DataTypes.TIMESTAMP(3),
            org.apache.paimon.data.Timestamp.fromEpochMillis(INSTANT_MILLIS),
            Schema.Type.INT64,
            Timestamp.LOGICAL_NAME,
            new java.util.Date(INSTANT_MILLIS)),
        row(
            DataTypes.TIMESTAMP(6),
            nanos,
            Schema.Type.INT64,
            DebeziumTypes.MICRO_TIMESTAMP,
            INSTANT_MILLIS * 1000 + 456),
        row(
            DataTypes.TIMESTAMP(9),
            nanos,
            Schema.Type.INT64,
            DebeziumTypes.NANO_TIMESTAMP,
            INSTANT_MILLIS * 1_000_000 + 456_789),
        row(
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
            nanos,
            Schema.Type.STRING,
            DebeziumTypes.ZONED_TIMESTAMP,
            "2023-11-14T22:13:20.123456789Z"),
        row(
            DataTypes.ARRAY(DataTypes.INT()),
            new GenericArray(new Object[] {1, null, 3}),
            Schema.Type.ARRAY,
            null,
            java.util.Arrays.asList(1, null, 3)),
        row(
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.BIGINT()),
            new GenericMap(Map.of(BinaryString.fromString("k"), 5L)),
            Schema.Type.MAP,
            null,
            Map.of("k", 5L)),
        row(
            DataTypes.MULTISET(DataTypes.STRING().notNull()),
            new GenericMap(Map.of(BinaryString.fromString("x"), 2)),
            Schema.Type.MAP,
            null,
            Map.of("x", 2)));
  }

  private static Arguments row(
      DataType type, Object internal, Schema.Type connectType, String name, Object expected) {
    return Arguments.of(type, internal, connectType, name, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mappings")
  void mapsTypeAndValue(
      DataType type, Object internal, Schema.Type connectType, String name, Object expected) {
    Schema schema = ConnectMapping.schemaOf(type);
    assertThat(schema.type()).isEqualTo(connectType);
    assertThat(schema.name()).isEqualTo(name);
    assertThat(schema.isOptional()).isTrue();
    assertThat(ConnectMapping.schemaOf(type.copy(false)).isOptional()).isFalse();

    Object value = ConnectMapping.valueOf(type, schema, internal);
    assertThat(value).isEqualTo(expected);
    assertThat(ConnectMapping.valueOf(type, schema, null)).isNull();
  }

  @Test
  void decimalsCarryDebeziumPrecisionParameter() {
    Schema schema = ConnectMapping.schemaOf(DataTypes.DECIMAL(10, 2));
    assertThat(schema.parameters())
        .containsEntry(Decimal.SCALE_FIELD, "2")
        .containsEntry(DebeziumTypes.DECIMAL_PRECISION, "10");
  }

  @Test
  void nestedRowsBecomeStructs() {
    DataType type =
        DataTypes.ROW(
            DataTypes.FIELD(0, "street", DataTypes.STRING()),
            DataTypes.FIELD(1, "no", DataTypes.INT().notNull()));
    Schema schema = ConnectMapping.schemaOf(type);
    Struct value =
        (Struct)
            ConnectMapping.valueOf(type, schema, GenericRow.of(BinaryString.fromString("Main"), 5));
    assertThat(value.getString("street")).isEqualTo("Main");
    assertThat(value.getInt32("no")).isEqualTo(5);
    assertThat(schema.field("no").schema().isOptional()).isFalse();
  }

  @Test
  void variantIsRefusedWithTheTypeNamed() {
    assertThatThrownBy(() -> ConnectMapping.schemaOf(DataTypes.VARIANT()))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("VARIANT");
  }

  @Test
  void arraysOfStructsKeepTheirElementSchema() {
    DataType type = DataTypes.ARRAY(DataTypes.ROW(DataTypes.FIELD(0, "a", DataTypes.INT())));
    Schema schema = ConnectMapping.schemaOf(type);
    @SuppressWarnings("unchecked")
    List<Struct> value =
        (List<Struct>)
            ConnectMapping.valueOf(type, schema, new GenericArray(new Object[] {GenericRow.of(9)}));
    assertThat(value).singleElement().satisfies(s -> assertThat(s.getInt32("a")).isEqualTo(9));
  }

  /**
   * Round trip Paimon -> Connect -> Paimon over exactly the types the sink creates: {@link
   * TypeMapping} applied to every Debezium schema of {@link TypeMappingTest}'s table, plus the
   * types schema evolution widens columns to (TypeRules), each nullable and NOT NULL.
   */
  static Stream<Arguments> sinkCreatedTypes() {
    Stream<DataType> mapped =
        Stream.of(
                TypeMappingTest.primitives(),
                TypeMappingTest.decimals(),
                TypeMappingTest.temporal(),
                TypeMappingTest.semantic())
            .flatMap(rows -> rows)
            .map(args -> TypeMapping.toPaimon((Schema) args.get()[1]));
    Stream<DataType> widened =
        Stream.of(
            // integers widened to decimals, and decimal growth keeping integer digits and scale
            DataTypes.DECIMAL(3, 0),
            DataTypes.DECIMAL(5, 0),
            DataTypes.DECIMAL(10, 0),
            DataTypes.DECIMAL(19, 0),
            DataTypes.DECIMAL(6, 3),
            // length growth, CHAR -> VARCHAR
            DataTypes.VARCHAR(40),
            DataTypes.CHAR(10));
    return Stream.concat(mapped, widened)
        .flatMap(type -> Stream.of(type.copy(true), type.copy(false)))
        .distinct()
        .map(Arguments::of);
  }

  /**
   * The intended exceptions to the round trip: type root -> the type it comes back as. A plain
   * Connect STRING carries no length; adding Debezium's {@code __debezium.source.column.*}
   * parameters would claim a source column that does not exist, so CHAR(n)/VARCHAR(n) read back as
   * STRING (for which the sink checks no length).
   */
  private static final Map<DataTypeRoot, DataType> ROUND_TRIP_EXCEPTIONS =
      Map.of(
          DataTypeRoot.CHAR, DataTypes.STRING(),
          DataTypeRoot.VARCHAR, DataTypes.STRING());

  private static DataType expectedBack(DataType type) {
    return ROUND_TRIP_EXCEPTIONS.getOrDefault(type.getTypeRoot(), type).copy(type.isNullable());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sinkCreatedTypes")
  void sinkCreatedTypesComeBackAsThemselves(DataType type) {
    DataType back = TypeMapping.toPaimon(ConnectMapping.schemaOf(type));
    assertThat(back.asSQLString()).isEqualTo(expectedBack(type).asSQLString());
    assertThat(back).isEqualTo(expectedBack(type));
  }

  @Test
  void everyRoundTripExceptionChangesATypeTheSinkCreates() {
    List<DataType> changed =
        sinkCreatedTypes()
            .map(args -> (DataType) args.get()[0])
            .filter(type -> !expectedBack(type).equals(type))
            .collect(Collectors.toList());
    assertThat(changed.stream().map(DataType::getTypeRoot))
        .containsAll(ROUND_TRIP_EXCEPTIONS.keySet());
  }

  /**
   * Types only other writers create: where they land when the topic is read back by the sink,
   * widened without loss except where noted.
   */
  static Stream<Arguments> otherTypes() {
    return Stream.of(
        Arguments.of(DataTypes.BINARY(2), DataTypes.BYTES()),
        Arguments.of(DataTypes.VARBINARY(5), DataTypes.BYTES()),
        Arguments.of(DataTypes.TIME(0), DataTypes.TIME(3)),
        Arguments.of(DataTypes.TIMESTAMP(0), DataTypes.TIMESTAMP(3)),
        Arguments.of(DataTypes.TIMESTAMP(4), DataTypes.TIMESTAMP(6)),
        Arguments.of(DataTypes.TIMESTAMP(7), DataTypes.TIMESTAMP(9)),
        Arguments.of(
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3),
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)),
        // narrower: a value with sub-microsecond digits is refused by the sink, never rounded
        Arguments.of(
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9),
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)),
        Arguments.of(
            DataTypes.MULTISET(DataTypes.STRING().notNull()),
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.INT().notNull())));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("otherTypes")
  void otherTypesComeBackWidenedLosslessly(DataType type, DataType expected) {
    assertThat(TypeMapping.toPaimon(ConnectMapping.schemaOf(type))).isEqualTo(expected);
  }

  static Stream<Arguments> texts() {
    byte[] ascii = "Customer 17 Example-Name".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] mixed =
        "grüße \"q\" \\ \n\t \uD83D\uDE00 €".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] inLargerArray = new byte[mixed.length + 7];
    System.arraycopy(mixed, 0, inLargerArray, 5, mixed.length);
    MemorySegment[] twoSegments = {
      MemorySegment.wrap(java.util.Arrays.copyOfRange(mixed, 0, 4)),
      MemorySegment.wrap(java.util.Arrays.copyOfRange(mixed, 4, mixed.length))
    };
    return Stream.of(
        Arguments.of("ascii", BinaryString.fromBytes(ascii)),
        Arguments.of("empty", BinaryString.fromBytes(new byte[0])),
        Arguments.of("multi-byte and a surrogate pair", BinaryString.fromBytes(mixed)),
        Arguments.of(
            "inside a larger array", BinaryString.fromBytes(inLargerArray, 5, mixed.length)),
        Arguments.of("over two segments", BinaryString.fromAddress(twoSegments, 0, mixed.length)),
        // a lone continuation byte, a truncated sequence, an encoded surrogate, an overlong form
        Arguments.of(
            "malformed",
            BinaryString.fromBytes(
                new byte[] {
                  'a',
                  (byte) 0x80,
                  'b',
                  (byte) 0xE2,
                  (byte) 0x82,
                  'c',
                  (byte) 0xED,
                  (byte) 0xA0,
                  (byte) 0x80,
                  (byte) 0xC0,
                  (byte) 0xAF
                })));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("texts")
  void stringValuesAreTheTextPaimonDecodes(String name, BinaryString value) {
    Object mapped = ConnectMapping.valueOf(DataTypes.STRING(), Schema.STRING_SCHEMA, value);

    assertThat(mapped).isEqualTo(value.toString());
  }
}
