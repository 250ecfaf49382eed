package io.changelake.sink.it;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Debezium PostgreSQL change events of one source table, as JsonConverter with schemas writes them
 * (what a Debezium connector with JSON converters puts into Kafka). Each event gets the next LSN,
 * like a real WAL.
 */
final class DebeziumEvents {
  static final Schema SOURCE =
      SchemaBuilder.struct()
          .name("io.debezium.connector.postgresql.Source")
          .field("version", Schema.STRING_SCHEMA)
          .field("connector", Schema.STRING_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .field("db", Schema.STRING_SCHEMA)
          .field("schema", Schema.STRING_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  private static final JsonConverter KEYS = converter(true);
  private static final JsonConverter VALUES = converter(false);

  final String topic;
  final String table;
  final Schema key;
  final Schema row;
  final Schema envelope;
  private long lsn;

  /**
   * @param columns the row schema: name, Connect schema, name, schema, ...; the first column is the
   *     key
   */
  DebeziumEvents(String topic, String table, long firstLsn, Object... columns) {
    this.topic = topic;
    this.table = table;
    this.lsn = firstLsn;
    SchemaBuilder rowBuilder = SchemaBuilder.struct().name(topic + ".Value").optional();
    for (int i = 0; i < columns.length; i += 2) {
      rowBuilder.field((String) columns[i], (Schema) columns[i + 1]);
    }
    row = rowBuilder.build();
    Field keyField = row.fields().get(0);
    key =
        SchemaBuilder.struct()
            .name(topic + ".Key")
            .field(keyField.name(), keyField.schema())
            .build();
    envelope =
        SchemaBuilder.struct()
            .name(topic + ".Envelope")
            .field("before", row)
            .field("after", row)
            .field("source", SOURCE)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
  }

  private static JsonConverter converter(boolean isKey) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), isKey);
    return converter;
  }

  /** A row of this table's schema, values in column order. */
  Struct row(Object... values) {
    Struct struct = new Struct(row);
    for (int i = 0; i < values.length; i++) {
      struct.put(row.fields().get(i), values[i]);
    }
    return struct;
  }

  /** The same events with one more column: a schema change in the source. */
  DebeziumEvents withColumn(String name, Schema schema) {
    Object[] columns = new Object[row.fields().size() * 2 + 2];
    int i = 0;
    for (Field f : row.fields()) {
      columns[i++] = f.name();
      columns[i++] = f.schema();
    }
    columns[i++] = name;
    columns[i] = schema;
    return new DebeziumEvents(topic, table, lsn, columns);
  }

  String keyOf(Struct row) {
    Struct k = new Struct(key);
    k.put(key.fields().get(0), row.get(key.fields().get(0).name()));
    return json(KEYS, key, k);
  }

  String create(Struct after) {
    return envelope("c", null, after);
  }

  String read(Struct after) {
    return envelope("r", null, after);
  }

  String update(Struct before, Struct after) {
    return envelope("u", before, after);
  }

  String delete(Struct before) {
    return envelope("d", before, null);
  }

  String truncate() {
    return envelope("t", null, null);
  }

  private String envelope(String op, Struct before, Struct after) {
    Struct source =
        new Struct(SOURCE)
            .put("version", "3.6.1.Final")
            .put("connector", "postgresql")
            .put("name", "server1")
            .put("ts_ms", System.currentTimeMillis())
            .put("db", "shop")
            .put("schema", "public")
            .put("table", table)
            .put("lsn", lsn += 8);
    Struct value =
        new Struct(envelope)
            .put("before", before)
            .put("after", after)
            .put("source", source)
            .put("op", op)
            .put("ts_ms", System.currentTimeMillis());
    return json(VALUES, envelope, value);
  }

  private String json(JsonConverter converter, Schema schema, Object value) {
    return new String(converter.fromConnectData(topic, schema, value), StandardCharsets.UTF_8);
  }
}
