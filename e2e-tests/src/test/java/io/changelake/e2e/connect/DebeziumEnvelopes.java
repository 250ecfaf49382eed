package io.changelake.e2e.connect;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/** Debezium change events written straight to a topic, for tests that need no database. */
public final class DebeziumEnvelopes {
  private DebeziumEnvelopes() {}

  /**
   * Keys 1..rows as Debezium's PostgreSQL connector writes creates (JSON, schemas on) of table
   * {@code shop.public.<table>}: columns {@code id} (the key) and {@code name}.
   */
  public static void produceCreates(String bootstrapServers, String topic, String table, int rows) {
    Schema key = SchemaBuilder.struct().name(topic + ".Key").field("id", Schema.INT64_SCHEMA);
    Schema row =
        SchemaBuilder.struct()
            .name(topic + ".Value")
            .optional()
            .field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    Schema source =
        SchemaBuilder.struct()
            .name("io.debezium.connector.postgresql.Source")
            .field("connector", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("db", Schema.STRING_SCHEMA)
            .field("schema", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Schema envelope =
        SchemaBuilder.struct()
            .name(topic + ".Envelope")
            .field("before", row)
            .field("after", row)
            .field("source", source)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    JsonConverter keys = converter(true);
    JsonConverter values = converter(false);
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (long id = 1; id <= rows; id++) {
        long ts = 1_764_500_000_000L + id;
        Struct value =
            new Struct(envelope)
                .put("after", new Struct(row).put("id", id).put("name", "item " + id))
                .put(
                    "source",
                    new Struct(source)
                        .put("connector", "postgresql")
                        .put("ts_ms", ts)
                        .put("db", "shop")
                        .put("schema", "public")
                        .put("table", table)
                        .put("lsn", 30_000_000L + id * 100))
                .put("op", "c")
                .put("ts_ms", ts);
        producer.send(
            new ProducerRecord<>(
                topic,
                keys.fromConnectData(topic, key, new Struct(key).put("id", id)),
                values.fromConnectData(topic, envelope, value)));
      }
      producer.flush();
    }
  }

  private static JsonConverter converter(boolean isKey) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), isKey);
    return converter;
  }
}
