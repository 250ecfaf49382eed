package io.changelake.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;

/**
 * Debezium's semantic types survive the lake: Connect schema -> Paimon column -> Connect schema.
 */
class SemanticTypesTest {
  private static Schema named(SchemaBuilder builder, String name) {
    return builder.name(name).optional().build();
  }

  private static final Schema ROW =
      SchemaBuilder.struct()
          .field("id", Schema.INT32_SCHEMA)
          .field("c_uuid", named(SchemaBuilder.string(), "io.debezium.data.Uuid"))
          .field("c_json", named(SchemaBuilder.string(), "io.debezium.data.Json"))
          .field("c_xml", named(SchemaBuilder.string(), "io.debezium.data.Xml"))
          .field("c_time", named(SchemaBuilder.int64(), "io.debezium.time.MicroTime"))
          .field("c_interval", named(SchemaBuilder.int64(), "io.debezium.time.MicroDuration"))
          .field("c_interval_iso", named(SchemaBuilder.string(), "io.debezium.time.Interval"))
          .field(
              "c_numeric_free",
              SchemaBuilder.struct()
                  .name("io.debezium.data.VariableScaleDecimal")
                  .field("scale", Schema.INT32_SCHEMA)
                  .field("value", Schema.BYTES_SCHEMA)
                  .optional()
                  .build())
          .field("c_text", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  @Test
  void theSemanticNameTravelsInTheColumnDescriptionAndComesBackOnTheSchema() {
    RowType columns = TypeMapping.toRowType(ROW);
    assertThat(columns.getTypeAt(columns.getFieldIndex("c_uuid"))).isEqualTo(DataTypes.STRING());
    assertThat(columns.getFields())
        .extracting(f -> f.name() + "=" + SemanticTypes.of(f).orElse("-"))
        .containsExactly(
            "id=-",
            "c_uuid=io.debezium.data.Uuid",
            "c_json=io.debezium.data.Json",
            "c_xml=io.debezium.data.Xml",
            "c_time=io.debezium.time.MicroTime",
            // Debezium's JDBC sink would drop its microseconds: kept as a number
            "c_interval=-",
            "c_interval_iso=io.debezium.time.Interval",
            // Debezium's JDBC sink would make it a double precision column: kept as text
            "c_numeric_free=-",
            "c_text=-");

    Schema published = ConnectMapping.structOf("t.Value", columns.getFields(), false);
    assertThat(published.fields())
        .extracting(f -> f.name() + "=" + f.schema().name() + ":" + f.schema().type())
        .containsExactly(
            "id=null:INT32",
            "c_uuid=io.debezium.data.Uuid:STRING",
            "c_json=io.debezium.data.Json:STRING",
            "c_xml=io.debezium.data.Xml:STRING",
            "c_time=io.debezium.time.MicroTime:INT64",
            "c_interval=null:INT64",
            "c_interval_iso=io.debezium.time.Interval:STRING",
            "c_numeric_free=null:STRING",
            "c_text=null:STRING");
    assertThat(published.field("c_uuid").schema().isOptional()).isTrue();
  }

  @Test
  void valuesComeBackAsDebeziumWroteThem() {
    RowType columns = TypeMapping.toRowType(ROW);
    Schema published = ConnectMapping.structOf("t.Value", columns.getFields(), false);
    long micros = -((838L * 3600 + 59 * 60 + 58) * 1_000_000L + 999_999); // MySQL's lowest time
    for (long time : List.of(0L, 45_296_000_001L, 86_399_999_999L, micros)) {
      // what the sink stores for a MicroTime, and what the source publishes from it
      BinaryString stored = BinaryString.fromString(ValueConverters.time(time, 6));
      int t = columns.getFieldIndex("c_time");
      assertThat(
              ConnectMapping.valueOf(
                  columns.getFields().get(t), published.field("c_time").schema(), stored))
          .as("time %s stored as %s", time, stored)
          .isEqualTo(time);
    }
    int i = columns.getFieldIndex("c_interval");
    assertThat(
            ConnectMapping.valueOf(
                columns.getFields().get(i),
                published.field("c_interval").schema(),
                93_784_000_004L))
        .isEqualTo(93_784_000_004L);
  }
}
