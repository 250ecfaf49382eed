package io.changelake.schema;

import static io.changelake.schema.TypeMappingTest.decimal;
import static io.changelake.schema.ValueConversionTest.normalize;
import static org.assertj.core.api.Assertions.assertThat;

import io.apicurio.registry.utils.converter.avro.AvroData;
import io.debezium.data.Bits;
import io.debezium.data.Enum;
import io.debezium.data.Json;
import io.debezium.data.VariableScaleDecimal;
import io.debezium.data.geometry.Geometry;
import io.debezium.time.Date;
import io.debezium.time.MicroTime;
import io.debezium.time.MicroTimestamp;
import io.debezium.time.NanoTimestamp;
import io.debezium.time.Timestamp;
import io.debezium.time.ZonedTimestamp;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;

/**
 * A Debezium row value sent through the Avro converter this project uses (Apicurio's AvroData, Avro
 * binary on the wire) maps to the same Paimon types and converts to the same values as the original
 * Connect record.
 */
class AvroConverterTest {

  private static final Schema ROW =
      SchemaBuilder.struct()
          .name("pg.public.items.Value")
          .field("id", Schema.INT32_SCHEMA)
          .field("small", Schema.OPTIONAL_INT16_SCHEMA)
          .field("tiny", Schema.OPTIONAL_INT8_SCHEMA)
          .field("price", decimal(2, "10"))
          .field("amount", VariableScaleDecimal.optionalSchema())
          .field("born", Date.builder().optional().build())
          .field("at", MicroTime.builder().optional().build())
          .field("created", MicroTimestamp.builder().optional().build())
          .field("legacy", Timestamp.builder().optional().build())
          .field("precise", NanoTimestamp.builder().optional().build())
          .field("updated", ZonedTimestamp.builder().optional().build())
          .field("doc", Json.builder().optional().build())
          .field("state", Enum.builder("new,done").optional().build())
          .field("flags", Bits.builder(12).optional().build())
          .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
          .field("shape", Geometry.builder().optional().build())
          .field("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
          .field(
              "attrs",
              SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA)
                  .optional()
                  .build())
          .build();

  @Test
  void mapsAndConvertsLikeTheOriginalRecord() throws Exception {
    Struct original =
        new Struct(ROW)
            .put("id", 1)
            .put("small", (short) -300)
            .put("tiny", (byte) 7)
            .put("price", new BigDecimal("12345678.90"))
            .put(
                "amount",
                VariableScaleDecimal.fromLogical(
                    VariableScaleDecimal.optionalSchema(),
                    new BigDecimal("-123456789012345678901234567890.123456789")))
            .put("born", 19_724)
            .put("at", 45_296_123_456L)
            .put("created", 1_704_164_645_123_456L)
            .put("legacy", 1_704_164_645_123L)
            .put("precise", 1_704_164_645_123_456_789L)
            .put("updated", "2024-01-02T05:04:05.123456+02:00")
            .put("doc", "{\"a\": [1, 2.50]}")
            .put("state", "done")
            .put("flags", new byte[] {1, 8})
            .put("blob", new byte[] {0, -1})
            .put(
                "shape",
                Geometry.createValue(
                    Geometry.builder().optional().build(), new byte[] {1, 2}, 4326))
            .put("tags", Arrays.asList("a", null))
            .put("attrs", Map.of("k", "v"));

    SchemaAndValue viaAvro = throughAvro(ROW, original);

    RowType expected = TypeMapping.toRowType(ROW);
    RowType actual = TypeMapping.toRowType(viaAvro.schema());
    assertThat(actual.getFieldNames()).isEqualTo(expected.getFieldNames());
    for (int i = 0; i < expected.getFieldCount(); i++) {
      assertThat(actual.getTypeAt(i).asSQLString())
          .as(expected.getFieldNames().get(i))
          .isEqualTo(expected.getTypeAt(i).asSQLString());
    }
    assertThat(
            fields(
                RowConverter.compile(viaAvro.schema(), expected)
                    .convert((Struct) viaAvro.value(), RowKind.INSERT)
                    .row()))
        .isEqualTo(
            fields(RowConverter.compile(ROW, expected).convert(original, RowKind.INSERT).row()));
  }

  @Test
  void nullsAndTheUnavailablePlaceholderSurviveTheAvroConverter() throws Exception {
    Struct original =
        new Struct(ROW)
            .put("id", 2)
            .put("price", new BigDecimal("0.00"))
            .put("doc", ConversionOptions.DEBEZIUM_UNAVAILABLE_VALUE)
            .put("blob", ConversionOptions.DEBEZIUM_UNAVAILABLE_VALUE.getBytes())
            .put("tags", List.of(ConversionOptions.DEBEZIUM_UNAVAILABLE_VALUE));

    SchemaAndValue viaAvro = throughAvro(ROW, original);
    ConvertedRow converted =
        RowConverter.compile(viaAvro.schema(), TypeMapping.toRowType(ROW))
            .convert((Struct) viaAvro.value(), RowKind.UPDATE_AFTER);

    RowType rowType = TypeMapping.toRowType(ROW);
    assertThat(converted.unavailable().stream().mapToObj(rowType.getFieldNames()::get).toList())
        .containsExactly("doc", "blob", "tags");
    assertThat(converted.row().isNullAt(rowType.getFieldIndex("updated"))).isTrue();
  }

  /** What a sink task sees when the source used the Avro converter. */
  private static SchemaAndValue throughAvro(Schema schema, Struct value) throws Exception {
    AvroData avroData = new AvroData(10);
    org.apache.avro.Schema avroSchema = avroData.fromConnectSchema(schema);
    Object avroValue = avroData.fromConnectData(schema, value);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
    new GenericDatumWriter<Object>(avroSchema).write(avroValue, encoder);
    encoder.flush();
    Object decoded =
        new GenericDatumReader<Object>(avroSchema)
            .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    // a fresh AvroData, as in another worker: nothing cached from the producing side
    return new AvroData(10).toConnectData(avroSchema, decoded);
  }

  private static List<Object> fields(GenericRow row) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < row.getFieldCount(); i++) {
      values.add(normalize(row.getField(i)));
    }
    return values;
  }
}
