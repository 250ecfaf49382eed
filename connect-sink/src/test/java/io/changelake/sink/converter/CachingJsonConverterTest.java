package io.changelake.sink.converter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The caching converter must be indistinguishable from JsonConverter: every case converts a message
 * with both and compares schema and value (or the error message). Each message is converted twice
 * so the second conversion takes the cached-schema path.
 */
class CachingJsonConverterTest {

  private static final Map<String, Object> SCHEMAS_ON = Map.of("schemas.enable", "true");

  static Stream<Arguments> connectValues() {
    List<Arguments> cases = new ArrayList<>();
    cases.add(Arguments.of("int8", Schema.INT8_SCHEMA, (byte) -7));
    cases.add(Arguments.of("int16", Schema.INT16_SCHEMA, (short) 31000));
    cases.add(Arguments.of("int32", Schema.INT32_SCHEMA, Integer.MIN_VALUE));
    cases.add(Arguments.of("int64", Schema.INT64_SCHEMA, Long.MAX_VALUE));
    cases.add(Arguments.of("float32", Schema.FLOAT32_SCHEMA, 3.1415927f));
    cases.add(Arguments.of("float64", Schema.FLOAT64_SCHEMA, -1.0e-300));
    cases.add(Arguments.of("float64 integral", Schema.FLOAT64_SCHEMA, 42.0));
    cases.add(Arguments.of("boolean", Schema.BOOLEAN_SCHEMA, true));
    cases.add(Arguments.of("string", Schema.STRING_SCHEMA, "grüße \"quoted\" {braces} \\ \u2603"));
    cases.add(Arguments.of("bytes", Schema.BYTES_SCHEMA, new byte[] {0, 1, -1, 127, -128}));
    cases.add(Arguments.of("optional null", Schema.OPTIONAL_STRING_SCHEMA, null));
    cases.add(
        Arguments.of("decimal", Decimal.schema(4), new BigDecimal("-12345678901234567.8901")));
    cases.add(Arguments.of("date", Date.SCHEMA, Date.toLogical(Date.SCHEMA, 19_000)));
    cases.add(Arguments.of("time", Time.SCHEMA, Time.toLogical(Time.SCHEMA, 45_296_789)));
    cases.add(Arguments.of("timestamp", Timestamp.SCHEMA, new java.util.Date(1_700_000_000_123L)));
    Schema ints = SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build();
    cases.add(Arguments.of("array with null", ints, Arrays.asList(1, null, 3)));
    cases.add(Arguments.of("empty array", ints, List.of()));
    Schema stringMap = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build();
    cases.add(Arguments.of("string-keyed map", stringMap, Map.of("a", 1L, "b", 2L)));
    Schema intMap = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build();
    cases.add(Arguments.of("int-keyed map", intMap, Map.of(1, "one", 2, "two")));
    Schema point =
        SchemaBuilder.struct()
            .name("point")
            .field("x", Schema.FLOAT64_SCHEMA)
            .field("y", Schema.FLOAT64_SCHEMA)
            .build();
    Schema nested =
        SchemaBuilder.struct()
            .name("shape")
            .field("points", SchemaBuilder.array(point).build())
            .field("labels", SchemaBuilder.map(Schema.STRING_SCHEMA, point).optional().build())
            .field("origin", point)
            .build();
    Struct origin = new Struct(point).put("x", 0.5).put("y", -2.25);
    cases.add(
        Arguments.of(
            "nested structs",
            nested,
            new Struct(nested)
                .put("points", List.of(origin, new Struct(point).put("x", 1.0).put("y", 1e10)))
                .put("labels", Map.of("o", origin))
                .put("origin", origin)));
    Schema withDefaults =
        SchemaBuilder.struct()
            .name("defaults")
            .field("n", SchemaBuilder.int32().optional().defaultValue(5).build())
            .field("s", SchemaBuilder.string().optional().defaultValue("d").build())
            .build();
    cases.add(Arguments.of("null fields with defaults", withDefaults, new Struct(withDefaults)));
    cases.add(Arguments.of("int8 min", Schema.INT8_SCHEMA, Byte.MIN_VALUE));
    cases.add(Arguments.of("int64 min", Schema.INT64_SCHEMA, Long.MIN_VALUE));
    cases.add(Arguments.of("float32 tiny", Schema.FLOAT32_SCHEMA, Float.MIN_VALUE));
    cases.add(Arguments.of("float32 NaN", Schema.FLOAT32_SCHEMA, Float.NaN));
    cases.add(Arguments.of("float64 infinity", Schema.FLOAT64_SCHEMA, Double.NEGATIVE_INFINITY));
    cases.add(Arguments.of("float64 big", Schema.FLOAT64_SCHEMA, 1.0e21));
    cases.add(Arguments.of("float64 negative zero", Schema.FLOAT64_SCHEMA, -0.0));
    cases.add(Arguments.of("boolean false", Schema.BOOLEAN_SCHEMA, false));
    cases.add(Arguments.of("empty string", Schema.STRING_SCHEMA, ""));
    cases.add(
        Arguments.of(
            "control characters and a surrogate pair",
            Schema.STRING_SCHEMA,
            "tab\t nl\n cr\r bell\u0007 nul\u0000 del\u007f sep\u2028 emoji \uD83D\uDE00 </script>"));
    cases.add(Arguments.of("empty bytes", Schema.BYTES_SCHEMA, new byte[0]));
    cases.add(
        Arguments.of(
            "bytes as a buffer",
            Schema.BYTES_SCHEMA,
            java.nio.ByteBuffer.wrap(new byte[] {9, 8, 7, 6, 5, 4, 3})));
    cases.add(Arguments.of("decimal zero", Decimal.schema(0), BigDecimal.ZERO));
    cases.add(Arguments.of("decimal negative scale", Decimal.schema(-3), new BigDecimal("12E+3")));
    cases.add(Arguments.of("optional decimal null", Decimal.builder(2).optional().build(), null));
    cases.add(
        Arguments.of(
            "timestamp before 1970", Timestamp.SCHEMA, new java.util.Date(-86_400_000_123L)));
    Schema optionalInts = SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).optional().build();
    cases.add(Arguments.of("optional array null", optionalInts, null));
    Schema nullableValues =
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build();
    java.util.Map<String, String> withNull = new java.util.LinkedHashMap<>();
    withNull.put("k", null);
    withNull.put("v", "x");
    cases.add(Arguments.of("map with a null value", nullableValues, withNull));
    Schema decimalKeys =
        SchemaBuilder.map(Decimal.schema(1), SchemaBuilder.array(Date.SCHEMA).build()).build();
    cases.add(
        Arguments.of(
            "decimal-keyed map of date arrays",
            decimalKeys,
            Map.of(
                new BigDecimal("1.5"),
                List.of(Date.toLogical(Date.SCHEMA, 1), Date.toLogical(Date.SCHEMA, -1)))));
    Schema arrayOfMaps =
        SchemaBuilder.array(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA).build())
            .build();
    cases.add(
        Arguments.of(
            "array of maps",
            arrayOfMaps,
            List.of(Map.of("t", true), Map.of(), Map.of("f", false))));
    Schema everyType =
        SchemaBuilder.struct()
            .name("every.Type")
            .version(3)
            .doc("a \"documented\" struct")
            .parameter("origin", "test")
            .field("i8", Schema.OPTIONAL_INT8_SCHEMA)
            .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
            .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
            .field("i64", Schema.OPTIONAL_INT64_SCHEMA)
            .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("bool", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .field("str", Schema.OPTIONAL_STRING_SCHEMA)
            .field("bin", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("dec", Decimal.builder(3).optional().build())
            .field("day", Date.builder().optional().build())
            .field("time", Time.builder().optional().build())
            .field("ts", Timestamp.builder().optional().build())
            .field("req", SchemaBuilder.int32().defaultValue(7).build())
            .field("opt", SchemaBuilder.string().optional().defaultValue("dflt").build())
            .field(
                "inner", SchemaBuilder.struct().optional().field("z", Schema.INT16_SCHEMA).build())
            .build();
    Struct full =
        new Struct(everyType)
            .put("i8", (byte) 1)
            .put("i16", (short) -2)
            .put("i32", 3)
            .put("i64", -4L)
            .put("f32", 5.5f)
            .put("f64", -6.25)
            .put("bool", false)
            .put("str", "seven")
            .put("bin", new byte[] {8})
            .put("dec", new BigDecimal("9.001"))
            .put("day", Date.toLogical(Date.SCHEMA, 10))
            .put("time", Time.toLogical(Time.SCHEMA, 11))
            .put("ts", new java.util.Date(12))
            .put("req", 13)
            .put("opt", "fourteen")
            .put("inner", new Struct(everyType.field("inner").schema()).put("z", (short) 15));
    cases.add(Arguments.of("struct of every type, all set", everyType, full));
    cases.add(
        Arguments.of(
            "struct of every type, optional fields null (defaults where given)",
            everyType,
            new Struct(everyType).put("req", 13)));
    Schema oddNames =
        SchemaBuilder.struct()
            .field("quote\"d", Schema.INT32_SCHEMA)
            .field("back\\slash/", Schema.INT32_SCHEMA)
            .field("ctl\u0001\n", Schema.INT32_SCHEMA)
            .field("ümlaut \uD83D\uDE00", Schema.INT32_SCHEMA)
            .build();
    cases.add(
        Arguments.of(
            "field names to escape",
            oddNames,
            new Struct(oddNames)
                .put("quote\"d", 1)
                .put("back\\slash/", 2)
                .put("ctl\u0001\n", 3)
                .put("ümlaut \uD83D\uDE00", 4)));
    cases.add(Arguments.of("debezium update", Debezium.ENVELOPE, Debezium.update(1)));
    cases.add(Arguments.of("debezium create", Debezium.ENVELOPE, Debezium.create(2)));
    cases.add(Arguments.of("debezium delete", Debezium.ENVELOPE, Debezium.delete(3)));
    cases.add(Arguments.of("debezium key", Debezium.KEY, new Struct(Debezium.KEY).put("id", 9)));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("connectValues")
  void convertsWhatJsonConverterWroteToTheSameSchemaAndValue(
      String name, Schema schema, Object value) {
    JsonConverter writer = jsonConverter(SCHEMAS_ON);
    byte[] message = writer.fromConnectData("t", schema, value);

    CachingJsonConverter converter = assertSameConversion(message, SCHEMAS_ON);
    assertThat(converter.fastConversions())
        .as("second conversion used the cache")
        .isEqualTo(readFromTheCache(value) ? 1 : 0);
  }

  /**
   * NaN and infinities are written as JSON strings where the schema says number: reading them back
   * is left to JsonConverter (which makes them 0).
   */
  private static boolean readFromTheCache(Object value) {
    return !(value instanceof Float f && !Float.isFinite(f))
        && !(value instanceof Double d && !Double.isFinite(d));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("connectValues")
  void convertsNumericDecimalsAndKeepsNullsWhenAskedTo(String name, Schema schema, Object value) {
    Map<String, Object> config =
        Map.of(
            "schemas.enable", "true",
            "decimal.format", "NUMERIC",
            "replace.null.with.default", "false");
    byte[] message = jsonConverter(config).fromConnectData("t", schema, value);

    CachingJsonConverter converter = assertSameConversion(message, config);
    assertThat(converter.fastConversions())
        .as("second conversion used the cache")
        .isEqualTo(readFromTheCache(value) ? 1 : 0);
  }

  static Stream<Arguments> handWrittenMessages() {
    String intSchema = "{\"type\":\"int32\",\"optional\":false}";
    String struct =
        "{\"type\":\"struct\",\"fields\":[{\"field\":\"a\",\"type\":\"int64\",\"optional\":true},"
            + "{\"field\":\"b\",\"type\":\"string\",\"optional\":false}],\"optional\":false}";
    String decimal =
        "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
            + "\"parameters\":{\"scale\":\"2\"},\"optional\":false}";
    String date =
        "{\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\",\"optional\":false}";
    return Stream.of(
        Arguments.of(
            "whitespace everywhere",
            " {\n \"schema\" : " + intSchema + " ,\r\n" + " \"payload\" :\t 7 }\n"),
        Arguments.of("payload before schema", "{\"payload\":7,\"schema\":" + intSchema + "}"),
        Arguments.of(
            "extra envelope field", "{\"schema\":" + intSchema + ",\"payload\":7,\"extra\":1}"),
        Arguments.of("trailing garbage", "{\"schema\":" + intSchema + ",\"payload\":7} xyz"),
        Arguments.of("two payload values", "{\"schema\":" + intSchema + ",\"payload\":7 8}"),
        Arguments.of("string for int32", "{\"schema\":" + intSchema + ",\"payload\":\"abc\"}"),
        Arguments.of("float for int32", "{\"schema\":" + intSchema + ",\"payload\":7.9}"),
        Arguments.of("long for int32", "{\"schema\":" + intSchema + ",\"payload\":4294967297}"),
        Arguments.of("leading zeros", "{\"schema\":" + intSchema + ",\"payload\":007}"),
        Arguments.of("required null", "{\"schema\":" + intSchema + ",\"payload\":null}"),
        Arguments.of("missing required field", "{\"schema\":" + struct + ",\"payload\":{}}"),
        Arguments.of(
            "unknown and duplicate fields",
            "{\"schema\":"
                + struct
                + ",\"payload\":{\"z\":[1,{\"q\":2}],\"b\":\"x\",\"a\":1,\"b\":\"y\"}}"),
        Arguments.of("struct given as array", "{\"schema\":" + struct + ",\"payload\":[1]}"),
        Arguments.of(
            "big integer for int64",
            "{\"schema\":" + struct + ",\"payload\":{\"a\":123456789012345678901,\"b\":\"\"}}"),
        Arguments.of(
            "numeric decimal keeps its scale", "{\"schema\":" + decimal + ",\"payload\":1.50}"),
        Arguments.of("integral decimal", "{\"schema\":" + decimal + ",\"payload\":15}"),
        Arguments.of("bad base64 decimal", "{\"schema\":" + decimal + ",\"payload\":\"%%\"}"),
        Arguments.of("date given as long", "{\"schema\":" + date + ",\"payload\":4294967297}"),
        Arguments.of(
            "escaped brace in schema string",
            "{\"schema\":{\"type\":\"string\","
                + "\"doc\":\"a \\\"}\\\" b {\",\"optional\":false},\"payload\":\"v\"}"),
        Arguments.of("null schema", "{\"schema\":null,\"payload\":{\"a\":[1,2.5,\"s\"]}}"),
        Arguments.of("not an envelope", "{\"a\":1}"),
        Arguments.of("invalid json", "{\"schema\":" + intSchema + ",\"payload\":}"),
        Arguments.of("truncated", "{\"schema\":{\"type\":\"int32\""),
        Arguments.of("empty", ""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("handWrittenMessages")
  void handlesUnusualInputExactlyLikeJsonConverter(String name, String json) {
    assertSameConversion(json.getBytes(StandardCharsets.UTF_8), SCHEMAS_ON);
  }

  @Test
  void parsesEachDistinctSchemaOnceAndFollowsASchemaChangeMidStream() {
    JsonConverter writer = jsonConverter(SCHEMAS_ON);
    JsonConverter reference = jsonConverter(SCHEMAS_ON);
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    List<byte[]> stream = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      stream.add(writer.fromConnectData("t", Debezium.ENVELOPE, Debezium.update(i)));
    }
    for (int i = 5; i < 10; i++) { // ALTER TABLE ADD COLUMN upstream
      stream.add(writer.fromConnectData("t", Debezium.ENVELOPE_V2, Debezium.updateV2(i)));
    }
    stream.add(writer.fromConnectData("t", Debezium.ENVELOPE, Debezium.update(10)));

    for (byte[] message : stream) {
      assertThat(converter.toConnectData("t", message))
          .isEqualTo(reference.toConnectData("t", message));
    }
    assertThat(converter.cachedSchemas()).isEqualTo(2);
    assertThat(converter.fastConversions()).isEqualTo(stream.size() - 2);
    Struct last = (Struct) converter.toConnectData("t", stream.get(10)).value();
    assertThat(last.schema().field("after").schema().field("note")).isNull();
    Struct changed = (Struct) converter.toConnectData("t", stream.get(9)).value();
    assertThat(changed.getStruct("after").getString("note")).isEqualTo("note-9");
  }

  @Test
  void keepsTopicsWithDifferentSchemasApartWhenInterleaved() {
    JsonConverter writer = jsonConverter(SCHEMAS_ON);
    JsonConverter reference = jsonConverter(SCHEMAS_ON);
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    for (int i = 0; i < 6; i++) {
      String topic = i % 2 == 0 ? "orders" : "orders_v2";
      byte[] message =
          i % 2 == 0
              ? writer.fromConnectData(topic, Debezium.ENVELOPE, Debezium.update(i))
              : writer.fromConnectData(topic, Debezium.ENVELOPE_V2, Debezium.updateV2(i));
      assertThat(converter.toConnectData(topic, message))
          .isEqualTo(reference.toConnectData(topic, message));
    }
    assertThat(converter.cachedSchemas()).isEqualTo(2);
    assertThat(converter.fastConversions()).isEqualTo(4);
  }

  @Test
  void keepsAtMostTheConfiguredNumberOfSchemas() {
    Map<String, Object> config = Map.of("schemas.enable", "true", "schemas.cache.size", "1");
    JsonConverter writer = jsonConverter(config);
    JsonConverter reference = jsonConverter(config);
    CachingJsonConverter converter = cachingConverter(config);
    byte[] v1 = writer.fromConnectData("t", Debezium.ENVELOPE, Debezium.update(1));
    byte[] v2 = writer.fromConnectData("t", Debezium.ENVELOPE_V2, Debezium.updateV2(2));

    for (int round = 0; round < 3; round++) {
      assertThat(converter.toConnectData("t", v1)).isEqualTo(reference.toConnectData("t", v1));
      assertThat(converter.toConnectData("t", v2)).isEqualTo(reference.toConnectData("t", v2));
    }
    assertThat(converter.cachedSchemas()).isEqualTo(1);
  }

  static Stream<Arguments> writerConfigs() {
    return Stream.of(
        Arguments.of("schemas on", SCHEMAS_ON, true),
        Arguments.of("schemas off", Map.of("schemas.enable", "false"), true),
        Arguments.of(
            "nulls kept",
            Map.of("schemas.enable", "true", "replace.null.with.default", "false"),
            true),
        Arguments.of(
            "numeric decimals (left to JsonConverter)",
            Map.of("schemas.enable", "true", "decimal.format", "NUMERIC"),
            false));
  }

  static Stream<Arguments> writes() {
    return writerConfigs()
        .flatMap(
            config ->
                connectValues()
                    .map(
                        value ->
                            Arguments.of(
                                config.get()[0] + ", " + value.get()[0],
                                config.get()[1],
                                config.get()[2],
                                value.get()[1],
                                value.get()[2])));
  }

  @Test
  void writesPayloadsLargerThanItsBufferAndSmallOnesAfterThemLikeJsonConverter() {
    JsonConverter reference = jsonConverter(SCHEMAS_ON);
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    // the buffer starts with 4 kB blocks: 100 kB spans several, 10 bytes one
    for (int length : new int[] {10, 100_000, 10, 5_000, 10}) {
      String value = "x".repeat(length);
      assertThat(converter.fromConnectData("t", Schema.STRING_SCHEMA, value))
          .as("a payload of %d characters", length)
          .isEqualTo(reference.fromConnectData("t", Schema.STRING_SCHEMA, value));
    }
    assertThat(converter.fastWritten()).isEqualTo(5);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writes")
  void writesExactlyTheBytesJsonConverterWrites(
      String name, Map<String, Object> config, boolean fast, Schema schema, Object value) {
    JsonConverter reference = jsonConverter(config);
    CachingJsonConverter converter = cachingConverter(config);
    for (int attempt = 0; attempt < 2; attempt++) { // the second attempt reuses the schema bytes
      byte[] expected = reference.fromConnectData("t", schema, value);
      byte[] actual = converter.fromConnectData("t", schema, value);
      // as text first, for a readable difference; then byte for byte
      assertThat(actual == null ? null : new String(actual, StandardCharsets.UTF_8))
          .isEqualTo(expected == null ? null : new String(expected, StandardCharsets.UTF_8));
      assertThat(actual).isEqualTo(expected);
    }
    boolean written = value != null && fast;
    assertThat(converter.fastWritten())
        .as("written without JsonConverter")
        .isEqualTo(written ? 2 : 0);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writerConfigs")
  void oneConverterWritesAStreamOfEveryValueAndRejectedValuesInBetweenLikeJsonConverter(
      String name, Map<String, Object> config, boolean fast) {
    // one converter, one reused generator: no value may carry anything over from the one before,
    // also not from a write that failed halfway through (a required field missing deep inside)
    JsonConverter reference = jsonConverter(config);
    CachingJsonConverter converter = cachingConverter(config);
    Schema row = SchemaBuilder.struct().name("row").field("id", Schema.INT32_SCHEMA).build();
    Schema holder =
        SchemaBuilder.struct()
            .name("holder")
            .field("before", Schema.STRING_SCHEMA)
            .field("row", row)
            .build();
    Struct halfWritten = new Struct(holder).put("before", "written first");
    List<Object[]> stream = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      connectValues().forEach(value -> stream.add(new Object[] {value.get()[1], value.get()[2]}));
      stream.add(new Object[] {holder, halfWritten});
    }
    int written = 0;
    for (Object[] c : stream) {
      Schema schema = (Schema) c[0];
      Throwable expectedError = catchThrowable(() -> reference.fromConnectData("t", schema, c[1]));
      if (expectedError != null) {
        assertThatThrownBy(() -> converter.fromConnectData("t", schema, c[1]))
            .isInstanceOf(DataException.class)
            .hasMessage(expectedError.getMessage());
        continue;
      }
      assertThat(converter.fromConnectData("t", schema, c[1]))
          .as("value %d of the stream: %s", written, c[1])
          .isEqualTo(reference.fromConnectData("t", schema, c[1]));
      written++;
    }
    assertThat(written).isGreaterThan(stream.size() / 2);
    assertThat(converter.fastWritten() > 0).isEqualTo(fast);
  }

  @Test
  void twoThreadsSharingOneConverterEachGetTheirOwnValuesBytes() throws Exception {
    // Connect never shares a converter between threads; a plugin that does must still get its own
    // values' bytes, not a mix of two records written into one buffer
    JsonConverter reference = jsonConverter(SCHEMAS_ON);
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    java.util.concurrent.ExecutorService threads =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      List<java.util.concurrent.Future<Integer>> results = new ArrayList<>();
      for (int thread = 0; thread < 2; thread++) {
        int first = thread * 1_000_000;
        results.add(
            threads.submit(
                () -> {
                  for (int i = first; i < first + 5_000; i++) {
                    Struct value = Debezium.update(i);
                    byte[] expected;
                    synchronized (reference) {
                      expected = reference.fromConnectData("t", Debezium.ENVELOPE, value);
                    }
                    byte[] actual = converter.fromConnectData("t", Debezium.ENVELOPE, value);
                    if (!Arrays.equals(actual, expected)) {
                      throw new AssertionError(
                          "record "
                              + i
                              + " written as "
                              + new String(actual, StandardCharsets.UTF_8));
                    }
                  }
                  return 5_000;
                }));
      }
      for (java.util.concurrent.Future<Integer> result : results) {
        assertThat(result.get()).isEqualTo(5_000);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(converter.fastWritten()).isEqualTo(10_000);
  }

  @Test
  void aStructRepeatedFromRecordToRecordIsWrittenAsJsonConverterWritesItAlsoWhenChangedInBetween() {
    // a source connector hands the same source block to every record of a batch; its bytes are
    // copied from the second record on, and must follow every change made to it in between
    JsonConverter reference = jsonConverter(SCHEMAS_ON);
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    Schema block =
        SchemaBuilder.struct()
            .name("source")
            .field("name", Schema.STRING_SCHEMA)
            .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
            .field("id", Schema.INT64_SCHEMA)
            .field("amount", Decimal.builder(2).optional().build())
            .build();
    Schema record =
        SchemaBuilder.struct()
            .name("record")
            .field("row", Schema.INT32_SCHEMA)
            .field("source", block)
            .field("again", SchemaBuilder.struct().optional().field("v", Schema.INT32_SCHEMA))
            .build();
    Struct shared = new Struct(block).put("name", "lake").put("snapshot", "true").put("id", 7L);
    List<Runnable> changes =
        List.of(
            () -> {},
            () -> {},
            () -> shared.put("snapshot", "last"),
            () -> {},
            () -> shared.put("id", 8L),
            () -> shared.put("amount", new java.math.BigDecimal("12.34")),
            () -> shared.put("snapshot", null),
            () -> shared.put("name", "Förde \"lake\" \u00e9\uD83D\uDE00"),
            () -> {},
            () -> shared.put("name", "lake"),
            () -> {});
    int row = 0;
    for (Runnable change : changes) {
      change.run();
      Struct value = new Struct(record).put("row", row++).put("source", shared);
      String expected =
          new String(reference.fromConnectData("t", record, value), StandardCharsets.UTF_8);
      assertThat(new String(converter.fromConnectData("t", record, value), StandardCharsets.UTF_8))
          .as("record %d, source block %s", row, shared)
          .isEqualTo(expected);
    }
    // a required field missing in a repeated struct (a root value: Connect refuses to nest an
    // invalid struct): JsonConverter's error, every time
    Struct incomplete = new Struct(block).put("id", 9L);
    for (int attempt = 0; attempt < 3; attempt++) {
      Throwable expectedError =
          catchThrowable(() -> reference.fromConnectData("t", block, incomplete));
      assertThat(expectedError).isInstanceOf(DataException.class);
      assertThatThrownBy(() -> converter.fromConnectData("t", block, incomplete))
          .isInstanceOf(DataException.class)
          .hasMessage(expectedError.getMessage());
    }
    assertThat(converter.fastWritten()).isEqualTo(changes.size());
  }

  @Test
  void writesTheSameBytesForEqualButDistinctSchemasAndAfterASchemaChange() {
    JsonConverter reference = jsonConverter(SCHEMAS_ON);
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    Schema v1 = SchemaBuilder.struct().name("row").field("id", Schema.INT32_SCHEMA).build();
    Schema v1Again = SchemaBuilder.struct().name("row").field("id", Schema.INT32_SCHEMA).build();
    Schema v2 =
        SchemaBuilder.struct()
            .name("row")
            .field("id", Schema.INT32_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    for (Struct row :
        List.of(
            new Struct(v1).put("id", 1),
            new Struct(v1Again).put("id", 2),
            new Struct(v2).put("id", 3).put("note", "added"),
            new Struct(v1).put("id", 4))) {
      assertThat(converter.fromConnectData("t", row.schema(), row))
          .isEqualTo(reference.fromConnectData("t", row.schema(), row));
    }
    assertThat(converter.fastWritten()).isEqualTo(4);
  }

  @Test
  void rejectsWhatJsonConverterRejectsWithItsMessage() {
    JsonConverter reference = jsonConverter(SCHEMAS_ON);
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    Schema row = SchemaBuilder.struct().name("row").field("id", Schema.INT32_SCHEMA).build();
    Schema other = SchemaBuilder.struct().name("other").field("id", Schema.INT32_SCHEMA).build();
    Schema holder = SchemaBuilder.struct().name("holder").field("row", row).build();
    List<Object[]> bad =
        List.of(
            new Object[] {holder, new Struct(holder)}, // a required field is missing
            new Object[] {Schema.INT32_SCHEMA, "not a number"},
            new Object[] {row, new Struct(other).put("id", 1)});
    for (Object[] c : bad) {
      Throwable expected =
          catchThrowable(() -> reference.fromConnectData("t", (Schema) c[0], c[1]));
      assertThat(expected).as("JsonConverter rejects %s", c[1]).isInstanceOf(DataException.class);
      assertThatThrownBy(() -> converter.fromConnectData("t", (Schema) c[0], c[1]))
          .isInstanceOf(DataException.class)
          .hasMessage(expected.getMessage());
    }
  }

  @Test
  void rejectsACacheSizeBelowOne() {
    assertThatThrownBy(
            () -> cachingConverter(Map.of("schemas.enable", "true", "schemas.cache.size", "0")))
        .hasMessageContaining("schema cache size must be at least 1");
  }

  @Test
  void convertsTombstonesAndHeadersLikeJsonConverter() {
    CachingJsonConverter converter = cachingConverter(SCHEMAS_ON);
    assertThat(converter.toConnectData("t", null)).isEqualTo(SchemaAndValue.NULL);

    JsonConverter writer = jsonConverter(SCHEMAS_ON);
    byte[] header = writer.fromConnectHeader("t", "h", Schema.STRING_SCHEMA, "v");
    converter.toConnectHeader("t", "h", header);
    assertThat(converter.toConnectHeader("t", "h", header))
        .isEqualTo(new SchemaAndValue(Schema.STRING_SCHEMA, "v"));
    assertThat(converter.fromConnectHeader("t", "h", Schema.STRING_SCHEMA, "v")).isEqualTo(header);
  }

  @Test
  void withSchemasDisabledBehavesLikeJsonConverter() {
    Map<String, Object> config = Map.of("schemas.enable", "false");
    assertSameConversion("{\"a\":1,\"b\":[true,null]}".getBytes(StandardCharsets.UTF_8), config);
  }

  @Test
  void withAFixedSchemaContentReadsBarePayloadsLikeJsonConverter() {
    Map<String, Object> config =
        Map.of(
            "schemas.enable",
            "true",
            "schema.content",
            "{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"}]}");
    CachingJsonConverter converter =
        assertSameConversion("{\"id\":42}".getBytes(StandardCharsets.UTF_8), config);
    assertThat(converter.fastConversions()).as("JsonConverter converted it").isZero();
  }

  private static CachingJsonConverter assertSameConversion(
      byte[] message, Map<String, Object> config) {
    JsonConverter reference = jsonConverter(config);
    CachingJsonConverter converter = cachingConverter(config);
    for (int attempt = 0; attempt < 2; attempt++) { // the second attempt hits the schema cache
      Throwable expectedError = catchThrowable(() -> reference.toConnectData("t", message));
      if (expectedError != null) {
        assertThatThrownBy(() -> converter.toConnectData("t", message))
            .isInstanceOf(DataException.class)
            .hasMessage(expectedError.getMessage());
        continue;
      }
      SchemaAndValue expected = reference.toConnectData("t", message);
      SchemaAndValue actual = converter.toConnectData("t", message);
      assertThat(actual.schema()).isEqualTo(expected.schema());
      if (expected.value() instanceof byte[] bytes) {
        assertThat((byte[]) actual.value()).isEqualTo(bytes);
      } else {
        assertThat(actual.value()).isEqualTo(expected.value());
        if (expected.value() != null) {
          assertThat(actual.value()).hasSameClassAs(expected.value());
        }
      }
    }
    return converter;
  }

  private static JsonConverter jsonConverter(Map<String, Object> config) {
    JsonConverter converter = new JsonConverter();
    converter.configure(config, false);
    return converter;
  }

  private static CachingJsonConverter cachingConverter(Map<String, Object> config) {
    CachingJsonConverter converter = new CachingJsonConverter();
    converter.configure(config, false);
    return converter;
  }
}
