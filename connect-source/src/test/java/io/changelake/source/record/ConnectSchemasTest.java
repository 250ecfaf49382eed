package io.changelake.source.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
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
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConnectSchemasTest {

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
            ConnectSchemas.MICRO_TIMESTAMP,
            INSTANT_MILLIS * 1000 + 456),
        row(
            DataTypes.TIMESTAMP(9),
            nanos,
            Schema.Type.INT64,
            ConnectSchemas.NANO_TIMESTAMP,
            INSTANT_MILLIS * 1_000_000 + 456_789),
        row(
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
            nanos,
            Schema.Type.STRING,
            ConnectSchemas.ZONED_TIMESTAMP,
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
    Schema schema = ConnectSchemas.schemaOf(type);
    assertThat(schema.type()).isEqualTo(connectType);
    assertThat(schema.name()).isEqualTo(name);
    assertThat(schema.isOptional()).isTrue();
    assertThat(ConnectSchemas.schemaOf(type.copy(false)).isOptional()).isFalse();

    Object value = ConnectSchemas.valueOf(type, schema, internal);
    assertThat(value).isEqualTo(expected);
    assertThat(ConnectSchemas.valueOf(type, schema, null)).isNull();
  }

  @Test
  void decimalsCarryDebeziumPrecisionParameter() {
    Schema schema = ConnectSchemas.schemaOf(DataTypes.DECIMAL(10, 2));
    assertThat(schema.parameters())
        .containsEntry(Decimal.SCALE_FIELD, "2")
        .containsEntry(ConnectSchemas.DECIMAL_PRECISION, "10");
  }

  @Test
  void nestedRowsBecomeStructs() {
    DataType type =
        DataTypes.ROW(
            DataTypes.FIELD(0, "street", DataTypes.STRING()),
            DataTypes.FIELD(1, "no", DataTypes.INT().notNull()));
    Schema schema = ConnectSchemas.schemaOf(type);
    Struct value =
        (Struct)
            ConnectSchemas.valueOf(type, schema, GenericRow.of(BinaryString.fromString("Main"), 5));
    assertThat(value.getString("street")).isEqualTo("Main");
    assertThat(value.getInt32("no")).isEqualTo(5);
    assertThat(schema.field("no").schema().isOptional()).isFalse();
  }

  @Test
  void variantIsRefusedWithTheTypeNamed() {
    assertThatThrownBy(() -> ConnectSchemas.schemaOf(DataTypes.VARIANT()))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("VARIANT");
  }

  @Test
  void arraysOfStructsKeepTheirElementSchema() {
    DataType type = DataTypes.ARRAY(DataTypes.ROW(DataTypes.FIELD(0, "a", DataTypes.INT())));
    Schema schema = ConnectSchemas.schemaOf(type);
    @SuppressWarnings("unchecked")
    List<Struct> value =
        (List<Struct>)
            ConnectSchemas.valueOf(type, schema, new GenericArray(new Object[] {GenericRow.of(9)}));
    assertThat(value).singleElement().satisfies(s -> assertThat(s.getInt32("a")).isEqualTo(9));
  }
}
