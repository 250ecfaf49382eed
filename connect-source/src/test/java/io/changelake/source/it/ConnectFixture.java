package io.changelake.source.it;

import static org.awaitility.Awaitility.await;

import io.changelake.testkit.connect.ConnectPlatform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/** One in-process Kafka broker and Connect worker per test class, and a decoder for its topics. */
final class ConnectFixture implements AutoCloseable {
  static final String CONNECTOR_CLASS = "io.changelake.source.ChangelakeSourceConnector";

  private final ConnectPlatform platform;
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
    ConnectPlatform.Builder builder =
        ConnectPlatform.builder("changelake-source-" + (exactlyOnce ? "eos" : "plain"))
            .workerProp("key.converter", JsonConverter.class.getName())
            .workerProp("value.converter", JsonConverter.class.getName())
            .offsetFlushIntervalMs(500)
            .brokerProp("offsets.topic.replication.factor", "1")
            // abort timed-out transactions within a second (default 10 s), as tests lower the
            // timeout
            .brokerProp("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000")
            // a client quota measured over 2 s instead of 11: a throttled producer is held to its
            // rate all along, not allowed a 10 s burst and then stalled for seconds in one send
            .brokerProp("quota.window.num", "2")
            .brokerProp("quota.window.size.seconds", "1");
    if (exactlyOnce) {
      builder.exactlyOnceSource();
    } else {
      // as before: the plain cluster's single broker holds the transaction log too
      builder
          .brokerProp("transaction.state.log.replication.factor", "1")
          .brokerProp("transaction.state.log.min.isr", "1");
    }
    platform = builder.start();
    connect = platform.cluster();
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
    platform.configure(name, config);
  }

  void awaitRunning(String name, int tasks) {
    platform.awaitRunningExactly(name, tasks);
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
    List<Event> events = new ArrayList<>();
    if (connect.kafka().describeTopics(topic).get(topic).isEmpty()) {
      return events;
    }
    for (ConsumerRecord<byte[], byte[]> record :
        platform.readAll(topic, "read_committed".equals(isolation))) {
      events.add(decode(record));
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
    platform.close();
  }
}
