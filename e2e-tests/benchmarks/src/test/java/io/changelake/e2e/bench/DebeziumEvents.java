package io.changelake.e2e.bench;

import java.math.BigDecimal;
import java.util.BitSet;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;

/**
 * Debezium PostgreSQL change events for benchmark tables {@code public.t000...}, serialized exactly
 * as a Debezium connector with JsonConverter (schemas on) writes them: about 3.7 KB each, most of
 * it the embedded schema. Events are mostly updates over a fixed key space: the first event of a
 * key is a create, then updates, and now and then a delete (after which the key is created again).
 */
final class DebeziumEvents {

  /** One serialized change event. */
  record Event(String topic, byte[] key, byte[] value) {}

  private final String server;
  private final int tables;
  private final int keySpace;
  private final Schema[] keySchemas;
  private final Schema[] rowSchemas;
  private final Schema[] envelopeSchemas;
  private final Schema sourceSchema;
  private final BitSet[] existing;
  private final SplittableRandom random;
  private final Converter keyConverter;
  private final Converter valueConverter;
  private long lsn = 30_000_000L;
  private long tsMs = 1_764_500_000_000L;

  /**
   * @param server Debezium's topic prefix: events of table {@code t} go to {@code
   *     <server>.public.<t>}
   */
  DebeziumEvents(String server, int tables, int keySpace, long seed) {
    this(server, tables, keySpace, seed, converter(true), converter(false));
  }

  /** Events serialized by the given converters instead (e.g. Avro through a registry). */
  DebeziumEvents(
      String server,
      int tables,
      int keySpace,
      long seed,
      Converter keyConverter,
      Converter valueConverter) {
    this.keyConverter = keyConverter;
    this.valueConverter = valueConverter;
    this.server = server;
    this.tables = tables;
    this.keySpace = keySpace;
    this.random = new SplittableRandom(seed);
    this.sourceSchema = sourceSchema();
    this.rowSchemas = new Schema[tables];
    this.envelopeSchemas = new Schema[tables];
    this.existing = new BitSet[tables];
    this.keySchemas = new Schema[tables];
    for (int t = 0; t < tables; t++) {
      keySchemas[t] =
          SchemaBuilder.struct().name(topic(t) + ".Key").field("id", Schema.INT64_SCHEMA).build();
      rowSchemas[t] = rowSchema(topic(t));
      envelopeSchemas[t] = envelopeSchema(topic(t), rowSchemas[t]);
      existing[t] = new BitSet(keySpace);
    }
  }

  /** Debezium's topic prefix of these events. */
  String server() {
    return server;
  }

  static String tableName(int table) {
    return String.format("t%03d", table);
  }

  String topic(int table) {
    return topic(server, table);
  }

  static String topic(String server, int table) {
    return server + ".public." + tableName(table);
  }

  /** All topics of this event stream. */
  java.util.List<String> topics() {
    return java.util.stream.IntStream.range(0, tables).mapToObj(this::topic).toList();
  }

  /** The next event: a random table and key, create/update/delete depending on the key. */
  Event next() {
    int table = tables == 1 ? 0 : random.nextInt(tables);
    int key = random.nextInt(keySpace);
    return event(table, key);
  }

  /** A create or update of a given key (used to fill tables to a size before measuring). */
  Event upsert(int table, int key) {
    boolean exists = existing[table].get(key);
    existing[table].set(key);
    return serialize(table, key, exists ? "u" : "c");
  }

  private Event event(int table, int key) {
    String op;
    if (!existing[table].get(key)) {
      op = "c";
      existing[table].set(key);
    } else if (random.nextInt(20) == 0) {
      op = "d";
      existing[table].clear(key);
    } else {
      op = "u";
    }
    return serialize(table, key, op);
  }

  private Event serialize(int table, int key, String op) {
    lsn += 1 + random.nextInt(200);
    tsMs += random.nextInt(3);
    Struct before = op.equals("c") ? null : row(table, key, 1);
    Struct after = op.equals("d") ? null : row(table, key, 2);
    Struct source =
        new Struct(sourceSchema)
            .put("version", "3.6.1.Final")
            .put("connector", "postgresql")
            .put("name", server)
            .put("ts_ms", tsMs)
            .put("snapshot", "false")
            .put("db", "bench")
            .put("sequence", "[\"" + (lsn - 8) + "\",\"" + lsn + "\"]")
            .put("ts_us", tsMs * 1000)
            .put("ts_ns", tsMs * 1_000_000)
            .put("schema", "public")
            .put("table", tableName(table))
            .put("txId", lsn / 100)
            .put("lsn", lsn)
            .put("xmin", null);
    Struct envelope =
        new Struct(envelopeSchemas[table])
            .put("before", before)
            .put("after", after)
            .put("source", source)
            .put("op", op)
            .put("ts_ms", tsMs + 5)
            .put("ts_us", (tsMs + 5) * 1000)
            .put("ts_ns", (tsMs + 5) * 1_000_000);
    String topic = topic(table);
    Struct keyStruct = new Struct(keySchemas[table]).put("id", (long) key);
    return new Event(
        topic,
        keyConverter.fromConnectData(topic, keySchemas[table], keyStruct),
        valueConverter.fromConnectData(topic, envelopeSchemas[table], envelope));
  }

  private Struct row(int table, int key, int version) {
    Schema schema = rowSchemas[table];
    long k = key;
    int r = random.nextInt(1_000_000);
    return new Struct(schema)
        .put("id", k)
        .put("customer_id", k * 31 % 100_003)
        .put("status", STATUSES[(r + version) % STATUSES.length])
        .put("amount", BigDecimal.valueOf(r * 7L + version, 2))
        .put("unit_price", r / 97.0)
        .put("updated_at", 1_764_500_000_000_000L + r)
        .put("customer_name", "Customer " + key + " Example-Name")
        .put("note", NOTE.substring(0, 40 + r % 60));
  }

  private static final String[] STATUSES = {"NEW", "PAID", "PACKED", "SHIPPED", "DELIVERED"};
  private static final String NOTE =
      "Please deliver to the back door; the front bell is broken. Call before arrival, thanks!!"
          + " Leave it with the neighbours otherwise.";

  private static Schema rowSchema(String topic) {
    return SchemaBuilder.struct()
        .name(topic + ".Value")
        .optional()
        .field("id", Schema.INT64_SCHEMA)
        .field("customer_id", Schema.INT64_SCHEMA)
        .field("status", Schema.STRING_SCHEMA)
        .field(
            "amount",
            Decimal.builder(2).optional().parameter("connect.decimal.precision", "12").build())
        .field("unit_price", Schema.OPTIONAL_FLOAT64_SCHEMA)
        .field(
            "updated_at",
            SchemaBuilder.int64()
                .name("io.debezium.time.MicroTimestamp")
                .version(1)
                .optional()
                .build())
        .field("customer_name", Schema.STRING_SCHEMA)
        .field("note", Schema.OPTIONAL_STRING_SCHEMA)
        .build();
  }

  private static Schema sourceSchema() {
    return SchemaBuilder.struct()
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
                .version(1)
                .parameter(
                    "allowed",
                    "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental")
                .defaultValue("false")
                .build())
        .field("db", Schema.STRING_SCHEMA)
        .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
        .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
        .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
        .field("schema", Schema.STRING_SCHEMA)
        .field("table", Schema.STRING_SCHEMA)
        .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
        .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
        .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
  }

  private static Schema envelopeSchema(String topic, Schema row) {
    return SchemaBuilder.struct()
        .name(topic + ".Envelope")
        .version(2)
        .field("before", row)
        .field("after", row)
        .field("source", sourceSchema())
        .field(
            "transaction",
            SchemaBuilder.struct()
                .name("event.block")
                .version(1)
                .optional()
                .field("id", Schema.STRING_SCHEMA)
                .field("total_order", Schema.INT64_SCHEMA)
                .field("data_collection_order", Schema.INT64_SCHEMA)
                .build())
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
        .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
  }

  private static JsonConverter converter(boolean isKey) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), isKey);
    return converter;
  }
}
