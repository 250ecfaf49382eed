package io.changelake.source.it;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/** One in-process Kafka broker and Connect worker per test class, and a decoder for its topics. */
final class ConnectFixture implements AutoCloseable {
  static final String CONNECTOR_CLASS = "io.changelake.source.ChangelakeSourceConnector";

  final EmbeddedConnectCluster connect;
  private final JsonConverter keys = converter(true);
  private final JsonConverter values = converter(false);

  /** A decoded record of a topic. */
  record Event(String topic, int partition, long offset, Struct key, Struct value) {
    boolean tombstone() {
      return value == null;
    }

    String op() {
      return value.getString("op");
    }

    Struct after() {
      return value.getStruct("after");
    }

    Struct before() {
      return value.getStruct("before");
    }

    int id() {
      return key.getInt32("id");
    }
  }

  ConnectFixture(boolean exactlyOnce) {
    Map<String, String> worker = new HashMap<>();
    worker.put("plugin.discovery", "service_load");
    worker.put("key.converter", JsonConverter.class.getName());
    worker.put("value.converter", JsonConverter.class.getName());
    worker.put("offset.flush.interval.ms", "500");
    if (exactlyOnce) {
      worker.put("exactly.once.source.support", "enabled");
    }
    Properties broker = new Properties();
    // one broker: the transaction state log cannot have the default 3 replicas
    broker.put("transaction.state.log.replication.factor", "1");
    broker.put("transaction.state.log.min.isr", "1");
    broker.put("offsets.topic.replication.factor", "1");
    // abort timed-out transactions within a second (default 10 s), as tests lower the timeout
    broker.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
    // a client quota measured over 2 s instead of 11: a throttled producer is held to its rate
    // all along, not allowed a 10 s burst and then stalled for seconds in one send
    broker.put("quota.window.num", "2");
    broker.put("quota.window.size.seconds", "1");
    connect =
        new EmbeddedConnectCluster.Builder()
            .name("changelake-source-" + (exactlyOnce ? "eos" : "plain"))
            .numWorkers(1)
            .workerProps(worker)
            .brokerProps(broker)
            .build();
    connect.start();
  }

  private static JsonConverter converter(boolean isKey) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), isKey);
    return converter;
  }

  /** A connector config with the test defaults (topics created by the worker, 3 partitions). */
  static Map<String, String> sourceConfig(Map<String, String> catalogProps, String... keyValues) {
    Map<String, String> config = new HashMap<>(catalogProps);
    config.put("connector.class", CONNECTOR_CLASS);
    config.put("tasks.max", "1");
    config.put("poll.interval.ms", "100");
    config.put("tables.discovery.interval.ms", "300");
    config.put("topic.creation.default.replication.factor", "1");
    config.put("topic.creation.default.partitions", "3");
    for (int i = 0; i < keyValues.length; i += 2) {
      config.put(keyValues[i], keyValues[i + 1]);
    }
    return config;
  }

  void startConnector(String name, Map<String, String> config) {
    configure(name, config);
    awaitRunning(name, 1);
  }

  /** Creates or updates a connector, retrying while the worker group rebalances (HTTP 409). */
  void configure(String name, Map<String, String> config) {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptionsInstanceOf(
            org.apache.kafka.connect.runtime.rest.errors.ConnectRestException.class)
        .until(() -> connect.configureConnector(name, config) != null);
  }

  void awaitRunning(String name, int tasks) {
    try {
      connect
          .assertions()
          .assertConnectorAndExactlyNumTasksAreRunning(name, tasks, "connector did not start");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits until {@code topic} holds at least {@code count} records, then returns them all. */
  List<Event> awaitEvents(String topic, int count) {
    List<Event> events = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              events.clear();
              events.addAll(readAll(topic, "read_uncommitted"));
              return events.size() >= count;
            });
    return events;
  }

  /** Every record of {@code topic} now, in partition and offset order. */
  List<Event> readAll(String topic, String isolation) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<Event> events = new ArrayList<>();
    if (connect.kafka().describeTopics(topic).get(topic).isEmpty()) {
      return events;
    }
    try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumer(props)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.currentTimeMillis() + 30_000;
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end " + end);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          events.add(decode(record));
        }
      }
    }
    events.sort(
        (a, b) ->
            a.partition() != b.partition()
                ? Integer.compare(a.partition(), b.partition())
                : Long.compare(a.offset(), b.offset()));
    return events;
  }

  private Event decode(ConsumerRecord<byte[], byte[]> record) {
    SchemaAndValue key = keys.toConnectData(record.topic(), record.key());
    SchemaAndValue value = values.toConnectData(record.topic(), record.value());
    return new Event(
        record.topic(),
        record.partition(),
        record.offset(),
        (Struct) key.value(),
        (Struct) value.value());
  }

  @Override
  public void close() {
    connect.stop();
  }
}
