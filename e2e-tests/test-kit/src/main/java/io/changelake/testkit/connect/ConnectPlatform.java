package io.changelake.testkit.connect;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.runtime.rest.errors.ConnectRestException;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * One Kafka broker and Connect workers in this JVM, started per test class (a cluster takes several
 * seconds to start). Every worker discovers plugins with {@code plugin.discovery=service_load}; the
 * rest is chosen by the caller through {@link #builder}: the connectors on the class path (module
 * tests) or on a {@code plugin.path} (e2e-tests, which install the built plugin archive).
 * EmbeddedConnectCluster binds broker and workers to the loopback interface only.
 */
public final class ConnectPlatform implements AutoCloseable {
  private final EmbeddedConnectCluster cluster;

  private ConnectPlatform(EmbeddedConnectCluster cluster) {
    this.cluster = cluster;
  }

  /** A cluster named {@code name} (it names the workers' internal topics and threads). */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /**
   * The knobs module and e2e tests turn; everything not set is EmbeddedConnectCluster's default.
   */
  public static final class Builder {
    private final String name;
    private int workers = 1;
    // EmbeddedConnectCluster puts into this map: it must be mutable.
    private final Map<String, String> workerProps = new HashMap<>();
    private final Properties brokerProps = new Properties();

    private Builder(String name) {
      this.name = name;
      // scanning every jar for plugins costs seconds per worker; all our plugins declare services
      workerProps.put("plugin.discovery", "service_load");
    }

    /** How many Connect workers join the group (default one). */
    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    /** A worker setting (wins over the kit's and earlier ones). */
    public Builder workerProp(String key, String value) {
      workerProps.put(key, value);
      return this;
    }

    /** Worker settings (win over the kit's and earlier ones). */
    public Builder workerProps(Map<String, String> props) {
      workerProps.putAll(props);
      return this;
    }

    /**
     * Keys and values as JSON with schemas, what Debezium's PostgreSQL connector writes with its
     * usual settings (EmbeddedConnectCluster's default is the StringConverter).
     */
    public Builder jsonConverters() {
      workerProps.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
      workerProps.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
      workerProps.put("key.converter.schemas.enable", "true");
      workerProps.put("value.converter.schemas.enable", "true");
      return this;
    }

    /** How often workers commit offsets; sinks commit on every offset flush. */
    public Builder offsetFlushIntervalMs(long ms) {
      return workerProp("offset.flush.interval.ms", String.valueOf(ms));
    }

    /**
     * Exactly-once source support on the workers, with the transaction state log a single broker
     * can hold.
     */
    public Builder exactlyOnceSource() {
      workerProp("exactly.once.source.support", "enabled");
      // one broker: the transaction state log cannot have the default 3 replicas
      brokerProp("transaction.state.log.replication.factor", "1");
      return brokerProp("transaction.state.log.min.isr", "1");
    }

    /** A broker setting. */
    public Builder brokerProp(String key, String value) {
      brokerProps.put(key, value);
      return this;
    }

    /** Broker settings. */
    public Builder brokerProps(Properties props) {
      brokerProps.putAll(props);
      return this;
    }

    /** Starts the broker and the workers; returns once the workers joined. */
    public ConnectPlatform start() {
      EmbeddedConnectCluster cluster =
          new EmbeddedConnectCluster.Builder()
              .name(name)
              .numWorkers(workers)
              .numBrokers(1)
              .workerProps(new HashMap<>(workerProps))
              .brokerProps(brokerProps)
              .build();
      cluster.start();
      return new ConnectPlatform(cluster);
    }
  }

  public EmbeddedConnectCluster cluster() {
    return cluster;
  }

  public String bootstrapServers() {
    return cluster.kafka().bootstrapServers();
  }

  /** The REST URL of the first worker. */
  public String url() {
    return cluster.workers().iterator().next().url().toString();
  }

  public void createTopic(String topic, int partitions) {
    cluster.kafka().createTopic(topic, partitions);
  }

  /**
   * How far the consumer group of sink connector {@code name} is behind the end of each partition
   * of {@code topic}, as a lag monitor shows it: the end offset less the group's committed offset
   * (the whole partition where the group committed none), keyed {@code topic-partition}.
   */
  public Map<String, Long> sinkLag(String name, String topic) {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get()
          .get(topic)
          .partitions()
          .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets("connect-" + name).partitionsToOffsetAndMetadata().get();
      Map<String, Long> lag = new TreeMap<>();
      admin
          .listOffsets(latest)
          .all()
          .get()
          .forEach(
              (tp, end) -> {
                OffsetAndMetadata at = committed.get(tp);
                lag.put(tp.toString(), end.offset() - (at == null ? 0 : at.offset()));
              });
      return lag;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted reading the lag of " + name, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "Cannot read the lag of " + name + " on " + topic + ": " + e.getCause(), e);
    }
  }

  /** Creates or reconfigures a connector and waits until it and {@code tasks} tasks run. */
  public void deploy(String name, Map<String, String> config, int tasks) {
    cluster.configureConnector(name, config);
    awaitRunning(name, tasks);
  }

  /** Creates or updates a connector, retrying while the worker group rebalances (HTTP 409). */
  public void configure(String name, Map<String, String> config) {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptionsInstanceOf(ConnectRestException.class)
        .until(() -> cluster.configureConnector(name, config) != null);
  }

  /** Waits until the connector and at least {@code tasks} of its tasks run. */
  public void awaitRunning(String name, int tasks) {
    try {
      cluster
          .assertions()
          .assertConnectorAndAtLeastNumTasksAreRunning(
              name, tasks, "connector " + name + " did not start " + tasks + " task(s)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nstatus: " + describe(name), e);
    }
  }

  /** Waits until the connector and exactly {@code tasks} tasks run. */
  public void awaitRunningExactly(String name, int tasks) {
    try {
      cluster
          .assertions()
          .assertConnectorAndExactlyNumTasksAreRunning(name, tasks, "connector did not start");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Status of a connector and its tasks, with the trace of failed ones, for failure messages. */
  public String describe(String name) {
    try {
      ConnectorStateInfo info = cluster.connectorStatus(name);
      StringBuilder s = new StringBuilder(name + ": connector " + info.connector().state() + "\n");
      if (info.connector().trace() != null) {
        s.append(info.connector().trace()).append('\n');
      }
      for (ConnectorStateInfo.TaskState t : info.tasks()) {
        s.append("  task ").append(t.id()).append(": ").append(t.state()).append('\n');
        if (t.trace() != null) {
          s.append(t.trace()).append('\n');
        }
      }
      return s.toString();
    } catch (RuntimeException e) {
      return name + ": status unavailable (" + e.getMessage() + ")";
    }
  }

  /**
   * Null while the connectors and their tasks are not FAILED, else their {@link #describe} (with
   * traces): for ending waits early.
   */
  public String failure(String... names) {
    StringBuilder s = new StringBuilder();
    for (String name : names) {
      try {
        ConnectorStateInfo info = cluster.connectorStatus(name);
        boolean failed =
            "FAILED".equals(info.connector().state())
                || info.tasks().stream().anyMatch(t -> "FAILED".equals(t.state()));
        if (failed) {
          s.append(describe(name));
        }
      } catch (RuntimeException e) {
        // not known yet (being created): not a failure
      }
    }
    return s.isEmpty() ? null : s.toString();
  }

  public void delete(String name) {
    cluster.deleteConnector(name);
  }

  /** Reads a topic from the beginning to its current end. */
  public List<ConsumerRecord<byte[], byte[]>> readAll(String topic, boolean readCommitted) {
    return readAll(bootstrapServers(), topic, readCommitted);
  }

  /** Reads every partition of a topic from the beginning up to its end offsets at call time. */
  public static List<ConsumerRecord<byte[], byte[]>> readAll(
      String bootstrapServers, String topic, boolean readCommitted) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        readCommitted ? "read_committed" : "read_uncommitted");
    props.put(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
        "org.apache.kafka.common.serialization.ByteArrayDeserializer");
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        "org.apache.kafka.common.serialization.ByteArrayDeserializer");
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // with read_committed, the end offsets are the last stable offsets
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("timed out reading " + topic + " up to " + end);
        }
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
    }
    return records;
  }

  @Override
  public void close() {
    cluster.stop();
  }
}
