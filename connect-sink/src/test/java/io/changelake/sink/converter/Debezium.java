package io.changelake.sink.converter;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/** Debezium PostgreSQL-shaped change events covering the types Debezium emits. */
final class Debezium {

  static final Schema KEY =
      SchemaBuilder.struct().name("pg.public.orders.Key").field("id", Schema.INT32_SCHEMA).build();
  static final Schema ROW = row(false);
  static final Schema ROW_V2 = row(true);
  static final Schema SOURCE =
      SchemaBuilder.struct()
          .name("io.debezium.connector.postgresql.Source")
          .field("version", Schema.STRING_SCHEMA)
          .field("connector", Schema.STRING_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .field(
              "snapshot",
              SchemaBuilder.string()
                  .optional()
                  .name("io.debezium.data.Enum")
                  .parameter("allowed", "true,last,false,incremental")
                  .defaultValue("false")
                  .build())
          .field("db", Schema.STRING_SCHEMA)
          .field("schema", Schema.STRING_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
          .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
          .build();
  static final Schema ENVELOPE = envelope(ROW);
  static final Schema ENVELOPE_V2 = envelope(ROW_V2);

  private Debezium() {}

  private static Schema row(boolean withNote) {
    SchemaBuilder row =
        SchemaBuilder.struct()
            .name("pg.public.orders.Value")
            .optional()
            .field("id", Schema.INT32_SCHEMA)
            .field("small", Schema.OPTIONAL_INT16_SCHEMA)
            .field("qty", Schema.OPTIONAL_INT64_SCHEMA)
            .field(
                "price",
                Decimal.builder(2).parameter("connect.decimal.precision", "12").optional().build())
            .field("ratio", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("real", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .field("paid", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("day", SchemaBuilder.int32().name("io.debezium.time.Date").optional().build())
            .field(
                "created",
                SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
            .field(
                "updated",
                SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build())
            .field("doc", SchemaBuilder.string().name("io.debezium.data.Json").optional().build())
            .field("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
            .field(
                "amount",
                SchemaBuilder.struct()
                    .name("io.debezium.data.VariableScaleDecimal")
                    .optional()
                    .field("scale", Schema.INT32_SCHEMA)
                    .field("value", Schema.BYTES_SCHEMA)
                    .build());
    if (withNote) {
      row.field("note", Schema.OPTIONAL_STRING_SCHEMA);
    }
    return row.build();
  }

  private static Schema envelope(Schema row) {
    return SchemaBuilder.struct()
        .name("pg.public.orders.Envelope")
        .version(1)
        .field("before", row)
        .field("after", row)
        .field("source", SOURCE)
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .field(
            "transaction",
            SchemaBuilder.struct()
                .name("event.block")
                .optional()
                .field("id", Schema.STRING_SCHEMA)
                .field("total_order", Schema.INT64_SCHEMA)
                .field("data_collection_order", Schema.INT64_SCHEMA)
                .build())
        .build();
  }

  static Struct update(int id) {
    return envelope(ENVELOPE, "u", row(ROW, id, 1), row(ROW, id, 2));
  }

  static Struct create(int id) {
    return envelope(ENVELOPE, "c", null, row(ROW, id, 1));
  }

  static Struct delete(int id) {
    return envelope(ENVELOPE, "d", row(ROW, id, 3), null);
  }

  static Struct updateV2(int id) {
    Struct after = row(ROW_V2, id, 4).put("note", "note-" + id);
    return envelope(ENVELOPE_V2, "u", null, after);
  }

  private static Struct envelope(Schema schema, String op, Struct before, Struct after) {
    Struct source =
        new Struct(SOURCE)
            .put("version", "3.6.1.Final")
            .put("connector", "postgresql")
            .put("name", "pg")
            .put("ts_ms", 1_700_000_000_000L)
            .put("db", "shop")
            .put("schema", "public")
            .put("table", "orders")
            .put("lsn", 23_456_789L);
    return new Struct(schema)
        .put("before", before)
        .put("after", after)
        .put("source", source)
        .put("op", op)
        .put("ts_ms", 1_700_000_000_123L);
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
