package io.changelake.e2e.connect;

import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import io.changelake.testkit.JsonRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;

/**
 * The test kit's Debezium change events written straight to a topic, for tests without database.
 */
public final class DebeziumEnvelopes {
  private DebeziumEnvelopes() {}

  /**
   * Keys 1..rows as Debezium's PostgreSQL connector writes creates (JSON, schemas on) of table
   * {@code shop.public.<table>}: columns {@code id} (the key) and {@code name}. Returns once every
   * record is in the topic, or throws naming the first that is not.
   *
   * <p>One request in flight per partition: right after the topic is created, a partition's first
   * batch can get NOT_LEADER_OR_FOLLOWER while the batches sent behind it are appended; the
   * idempotent producer's retries of that first batch are then refused as out of order until its
   * delivery timeout (2 minutes) drops it, and {@code flush()} returns as if all were sent
   * (WorkerVersionsTest's sinks "stalled" at 34 or 36 of 40 rows: the rest was never written).
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
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (long id = 1; id <= rows; id++) {
        JsonRecord record =
            source
                .create(source.row(id, "item " + id))
                .atLsn(30_000_000L + id * 100)
                .json(InputShape.ENVELOPE)
                .orElseThrow();
        sent.add(producer.send(new ProducerRecord<>(topic, record.key(), record.value())));
      }
      producer.flush();
    }
    for (int i = 0; i < sent.size(); i++) {
      try {
        sent.get(i).get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while producing to " + topic, e);
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "The create of id " + (i + 1) + " was not written to " + topic + ": " + e.getCause(),
            e.getCause());
      }
    }
  }
}
