package io.changelake.configs.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Debezium change events recorded from a real PostgreSQL run, one JSON object per line: {@code
 * {"topic": ..., "key": <JsonConverter key>, "value": <JsonConverter value or null>}}. Replaying
 * them into Kafka gives the sink exactly what Debezium produced.
 */
final class RecordedEvents {
  static final String RESOURCE = "/quickstart/recorded-events.jsonl";
  private static final ObjectMapper JSON = new ObjectMapper();

  private RecordedEvents() {}

  /** One recorded event. */
  record Event(String topic, JsonNode key, JsonNode value) {
    boolean isSnapshotRead() {
      return value != null
          && DebeziumOp.READ.code().equals(value.path("payload").path(EnvelopeFields.OP).asText());
    }
  }

  /** The events shipped with the CLI, in order. */
  static List<Event> load() throws IOException {
    InputStream in = RecordedEvents.class.getResourceAsStream(RESOURCE);
    if (in == null) {
      throw new IOException("The recorded events " + RESOURCE + " are missing from the CLI jar");
    }
    List<Event> events = new ArrayList<>();
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (!line.isBlank()) {
          JsonNode event = JSON.readTree(line);
          JsonNode value = event.get("value");
          events.add(
              new Event(
                  event.path("topic").asText(),
                  event.get("key"),
                  value == null || value.isNull() ? null : value));
        }
      }
    }
    return events;
  }

  /** Produces the events in order, as Debezium did (JsonConverter bytes). */
  static void produce(String bootstrapServers, List<Event> events) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (Event event : events) {
        producer.send(
            new ProducerRecord<>(event.topic(), bytes(event.key()), bytes(event.value())));
      }
      producer.flush();
    }
  }

  /** Writes every record of {@code topic} (partition 0, from the start) to {@code file}. */
  static int record(String bootstrapServers, String topic, Path file) throws IOException {
    List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readAll(bootstrapServers, topic);
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (ConsumerRecord<byte[], byte[]> record : records) {
        ObjectNode line = JSON.createObjectNode();
        line.put("topic", topic);
        line.set("key", record.key() == null ? null : JSON.readTree(record.key()));
        line.set("value", record.value() == null ? null : JSON.readTree(record.value()));
        out.write(JSON.writeValueAsString(line));
        out.write('\n');
      }
    }
    return records.size();
  }

  private static byte[] bytes(JsonNode node) {
    try {
      return node == null || node.isNull() ? null : JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
