package io.changelake.e2e.bench;

import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
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
 * Debezium PostgreSQL change events (the test kit's) for benchmark tables {@code public.t000...},
 * serialized exactly as a Debezium connector with JsonConverter (schemas on) writes them: about 3.7
 * KB each, most of it the embedded schema. Events are mostly updates over a fixed key space: the
 * first event of a key is a create, then updates, and now and then a delete (after which the key is
 * created again).
 */
final class DebeziumEvents {

  /** One serialized change event. */
  record Event(String topic, byte[] key, byte[] value) {}

  private final String server;
  private final int tables;
  private final int keySpace;
  private final DebeziumTable[] sources;
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
    this.sources = new DebeziumTable[tables];
    this.existing = new BitSet[tables];
    for (int t = 0; t < tables; t++) {
      sources[t] = source(server, tableName(t));
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
    DebeziumTable source = sources[table];
    Change change =
        switch (op) {
          case "c" -> source.create(row(table, key, 2));
          case "d" -> source.delete(row(table, key, 1));
          default -> source.update(row(table, key, 1), row(table, key, 2));
        };
    change = change.atLsn(lsn).atSourceTsMs(tsMs).withSequence(lsn - 8);
    String topic = source.topic();
    return new Event(
        topic,
        keyConverter.fromConnectData(topic, source.keySchema(), change.key()),
        valueConverter.fromConnectData(topic, source.envelopeSchema(), change.envelope()));
  }

  private Struct row(int table, int key, int version) {
    long k = key;
    int r = random.nextInt(1_000_000);
    return sources[table].row(
        k,
        k * 31 % 100_003,
        STATUSES[(r + version) % STATUSES.length],
        BigDecimal.valueOf(r * 7L + version, 2),
        r / 97.0,
        1_764_500_000_000_000L + r,
        "Customer " + key + " Example-Name",
        NOTE.substring(0, 40 + r % 60));
  }

  private static final String[] STATUSES = {"NEW", "PAID", "PACKED", "SHIPPED", "DELIVERED"};
  private static final String NOTE =
      "Please deliver to the back door; the front bell is broken. Call before arrival, thanks!!"
          + " Leave it with the neighbours otherwise.";

  private static DebeziumTable source(String server, String table) {
    return DebeziumTable.builder(table)
        .server(server)
        .database("bench")
        .key("id", Schema.INT64_SCHEMA)
        .column("customer_id", Schema.INT64_SCHEMA)
        .column("status", Schema.STRING_SCHEMA)
        .column(
            "amount",
            Decimal.builder(2).optional().parameter("connect.decimal.precision", "12").build())
        .column("unit_price", Schema.OPTIONAL_FLOAT64_SCHEMA)
        .column(
            "updated_at",
            SchemaBuilder.int64()
                .name("io.debezium.time.MicroTimestamp")
                .version(1)
                .optional()
                .build())
        .column("customer_name", Schema.STRING_SCHEMA)
        .column("note", Schema.OPTIONAL_STRING_SCHEMA)
        .build();
  }

  private static JsonConverter converter(boolean isKey) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), isKey);
    return converter;
  }
}
