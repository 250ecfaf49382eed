package io.changelake.e2e.connect;

import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import io.changelake.testkit.JsonRecord;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;

/**
 * The test kit's Debezium change events written straight to a topic, for tests without database.
 */
public final class DebeziumEnvelopes {
  private DebeziumEnvelopes() {}

  /**
   * Keys 1..rows as Debezium's PostgreSQL connector writes creates (JSON, schemas on) of table
   * {@code shop.public.<table>}: columns {@code id} (the key) and {@code name}.
   */
  public static void produceCreates(String bootstrapServers, String topic, String table, int rows) {
    DebeziumTable source =
        DebeziumTable.builder(table)
            .topic(topic)
            .key("id", Schema.INT64_SCHEMA)
            .column("name", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (long id = 1; id <= rows; id++) {
        JsonRecord record =
            source
                .create(source.row(id, "item " + id))
                .atLsn(30_000_000L + id * 100)
                .json(InputShape.ENVELOPE)
                .orElseThrow();
        producer.send(new ProducerRecord<>(topic, record.key(), record.value()));
      }
      producer.flush();
    }
  }
}
