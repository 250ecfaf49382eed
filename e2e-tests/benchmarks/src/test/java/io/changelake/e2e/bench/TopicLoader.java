package io.changelake.e2e.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Creates topics and fills them with serialized change events before a sink is measured. */
final class TopicLoader {

  private final String bootstrapServers;

  TopicLoader(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  void createTopics(List<String> topics, int partitions) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
      List<NewTopic> missing = new ArrayList<>();
      var existing = admin.listTopics().names().get();
      for (String topic : topics) {
        if (!existing.contains(topic)) {
          missing.add(new NewTopic(topic, partitions, (short) 1));
        }
      }
      if (!missing.isEmpty()) {
        admin.createTopics(missing).all().get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topics " + topics, e);
    }
  }

  /**
   * Sends {@code count} events and waits until all are acknowledged; returns the bytes sent. A send
   * the broker never acknowledged (a batch expired after retries, as seen once on 100 fresh topics)
   * fails the load: a sink measured on fewer events than counted would read too fast.
   */
  long load(int count, Supplier<DebeziumEvents.Event> events) {
    long bytes = 0;
    AtomicReference<Exception> firstFailure = new AtomicReference<>();
    AtomicLong failed = new AtomicLong();
    // without idempotence: twice in a row on fresh topics of 100 tables (the lead's clean-clone
    // run, session 15) the idempotent producer held one batch unsent until it expired after 120 s;
    // a retried batch may now land after a later one of its partition, which a measured sink reads
    // all the same
    try (KafkaProducer<byte[], byte[]> producer =
        producer(Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"))) {
      for (int i = 0; i < count; i++) {
        DebeziumEvents.Event e = events.get();
        bytes += e.value().length + e.key().length;
        producer.send(
            new ProducerRecord<>(e.topic(), e.key(), e.value()),
            (metadata, error) -> {
              if (error != null) {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, error);
              }
            });
      }
      producer.flush();
    }
    if (failed.get() > 0) {
      throw new IllegalStateException(
          failed.get() + " of " + count + " events were not written to their topics",
          firstFailure.get());
    }
    return bytes;
  }

  KafkaProducer<byte[], byte[]> producer() {
    return producer(Map.of());
  }

  private KafkaProducer<byte[], byte[]> producer(Map<String, String> overrides) {
    Map<String, Object> props = new HashMap<>(throughputSettings());
    props.putAll(overrides);
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return new KafkaProducer<>(props);
  }

  /**
   * The producer settings of the loader and the plain-producer baseline, given to the source
   * connector too (as {@code producer.override.*}) so both send alike: Connect's own defaults for
   * source tasks (no linger, 16 kB batches, one request in flight) cap a single partition at a few
   * thousand large records per round trip.
   */
  static Map<String, String> throughputSettings() {
    return Map.of(
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.LINGER_MS_CONFIG, "20",
        ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(512 * 1024),
        ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(64L * 1024 * 1024),
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
  }
}
