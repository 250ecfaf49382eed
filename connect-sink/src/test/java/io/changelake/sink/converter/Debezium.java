package io.changelake.sink.converter;

import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/** Debezium PostgreSQL change events (from the test kit) covering the types Debezium emits. */
final class Debezium {

  static final DebeziumTable ORDERS = table();
  static final DebeziumTable ORDERS_V2 = ORDERS.withColumn("note", Schema.OPTIONAL_STRING_SCHEMA);
  static final Schema KEY = ORDERS.keySchema();
  static final Schema ROW = ORDERS.rowSchema();
  static final Schema ROW_V2 = ORDERS_V2.rowSchema();
  static final Schema ENVELOPE = ORDERS.envelopeSchema();
  static final Schema ENVELOPE_V2 = ORDERS_V2.envelopeSchema();

  private Debezium() {}

  private static DebeziumTable table() {
    return DebeziumTable.builder("orders")
        .server("pg")
        .key("id", Schema.INT32_SCHEMA)
        .column("small", Schema.OPTIONAL_INT16_SCHEMA)
        .column("qty", Schema.OPTIONAL_INT64_SCHEMA)
        .column(
            "price",
            Decimal.builder(2).parameter("connect.decimal.precision", "12").optional().build())
        .column("ratio", Schema.OPTIONAL_FLOAT64_SCHEMA)
        .column("real", Schema.OPTIONAL_FLOAT32_SCHEMA)
        .column("paid", Schema.OPTIONAL_BOOLEAN_SCHEMA)
        .column("name", Schema.OPTIONAL_STRING_SCHEMA)
        .column("blob", Schema.OPTIONAL_BYTES_SCHEMA)
        .column("day", SchemaBuilder.int32().name("io.debezium.time.Date").optional().build())
        .column(
            "created",
            SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
        .column(
            "updated",
            SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build())
        .column("doc", SchemaBuilder.string().name("io.debezium.data.Json").optional().build())
        .column("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
        .column(
            "amount",
            SchemaBuilder.struct()
                .name("io.debezium.data.VariableScaleDecimal")
                .optional()
                .field("scale", Schema.INT32_SCHEMA)
                .field("value", Schema.BYTES_SCHEMA)
                .build())
        .build();
  }

  static Struct update(int id) {
    return envelope(ORDERS.update(row(ROW, id, 1), row(ROW, id, 2)));
  }

  static Struct create(int id) {
    return envelope(ORDERS.create(row(ROW, id, 1)));
  }

  static Struct delete(int id) {
    return envelope(ORDERS.delete(row(ROW, id, 3)));
  }

  static Struct updateV2(int id) {
    Struct after = row(ROW_V2, id, 4).put("note", "note-" + id);
    return envelope(ORDERS_V2.update(null, after));
  }

  // every event at the same position: the converter tests compare serialized bytes
  private static Struct envelope(Change change) {
    return change.atLsn(23_456_789L).atSourceTsMs(1_700_000_000_000L).envelope();
  }

  private static Struct row(Schema schema, int id, int version) {
    Schema amount = schema.field("amount").schema();
    return new Struct(schema)
        .put("id", id)
        .put("small", (short) (id % 300))
        .put("qty", (long) id * version)
        .put("price", new BigDecimal(id + "." + version + "5"))
        .put("ratio", id / 7.0)
        .put("real", id / 3.0f)
        .put("paid", version % 2 == 0)
        .put("name", "customer " + id + " \u00e9\u4e2d")
        .put("blob", ("b" + id).getBytes(StandardCharsets.UTF_8))
        .put("day", 19_000 + id)
        .put("created", 1_700_000_000_000_000L + id)
        .put("updated", "2026-11-30T12:00:0" + (id % 10) + "Z")
        .put("doc", "{\"k\": " + id + "}")
        .put("tags", java.util.Arrays.asList("a", null, "c" + version))
        .put("amount", new Struct(amount).put("scale", 3).put("value", new byte[] {1, 2, 3}));
  }
}
