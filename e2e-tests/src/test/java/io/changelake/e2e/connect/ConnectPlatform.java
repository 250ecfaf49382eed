package io.changelake.e2e.connect;

import java.nio.file.Files;
import java.nio.file.Path;
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
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * One Kafka broker and Connect workers in this JVM, with the built Changelake plugin archive on
 * {@code plugin.path} (Debezium comes from the test classpath). Start one per test class: a cluster
 * takes several seconds to start.
 */
public final class ConnectPlatform implements AutoCloseable {
  /** The system property surefire sets to the folder the plugin archive was unpacked into. */
  public static final String PLUGIN_PATH_PROPERTY = "changelake.plugin.path";

  private final EmbeddedConnectCluster cluster;

  private ConnectPlatform(EmbeddedConnectCluster cluster) {
    this.cluster = cluster;
  }

  public static ConnectPlatform start(String name) {
    return start(name, 1, Map.of(), new Properties());
  }

  /**
   * Starts a broker and {@code workers} Connect workers.
   *
   * @param extraWorkerProps added to (and winning over) {@link #workerProps()}
   * @param brokerProps broker settings
   */
  public static ConnectPlatform start(
      String name, int workers, Map<String, String> extraWorkerProps, Properties brokerProps) {
    // EmbeddedConnectCluster puts into this map: it must be mutable.
    Map<String, String> props = new HashMap<>(workerProps());
    props.putAll(extraWorkerProps);
    EmbeddedConnectCluster cluster =
        new EmbeddedConnectCluster.Builder()
            .name(name)
            .numWorkers(workers)
            .numBrokers(1)
            .workerProps(props)
            .brokerProps(brokerProps)
            .build();
    cluster.start();
    return new ConnectPlatform(cluster);
  }

  /** Worker settings every test worker shares, in-process or in its own JVM. */
  public static Map<String, String> workerProps() {
    Map<String, String> props = new HashMap<>();
    props.put("plugin.discovery", "service_load");
    props.put("plugin.path", pluginPath().toString());
    props.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    props.put("key.converter.schemas.enable", "true");
    props.put("value.converter.schemas.enable", "true");
    // sinks commit on every offset flush: keep the loop short so tests see data quickly
    props.put("offset.flush.interval.ms", "1000");
    // keep the producer buffers of many tasks small inside a 1 GB test heap
    props.put("producer.buffer.memory", String.valueOf(16 * 1024 * 1024));
    props.put("task.shutdown.graceful.timeout.ms", "10000");
    // sinks subscribe with topics.regex before Debezium creates the topic of a table that had no
    // rows yet: see new topics in seconds, not after the default 5 minutes
    props.put("consumer.metadata.max.age.ms", "3000");
    // tasks of a worker that left move on within seconds, not after the default 5 minutes
    props.put("scheduled.rebalance.max.delay.ms", "2000");
    return props;
  }

  /** The folder holding the unpacked Changelake plugin archive. */
  public static Path pluginPath() {
    return folderFromProperty(PLUGIN_PATH_PROPERTY, "the unpacked plugin archive");
  }

  /**
   * The unpacked archive itself ({@code changelake-kafka-connect-<version>}, Confluent Hub's
   * layout: {@code manifest.json}, {@code lib/}, {@code etc/}, {@code doc/}) inside {@link
   * #pluginPath()}.
   */
  public static Path pluginFolder() {
    Path folder =
        pluginPath()
            .resolve("changelake-kafka-connect-" + System.getProperty("changelake.version"));
    if (!Files.isDirectory(folder)) {
      throw new IllegalStateException(
          folder
              + " is missing: the plugin archive was not unpacked; run mvn -pl e2e-tests verify");
    }
    return folder;
  }

  /**
   * The existing folder a system property set by e2e-tests/pom.xml names, with a fix when it is
   * missing (the test was started outside Maven).
   */
  public static Path folderFromProperty(String property, String what) {
    String path = System.getProperty(property);
    if (path == null || !Files.isDirectory(Path.of(path))) {
      throw new IllegalStateException(
          "system property "
              + property
              + " must name "
              + what
              + " (got "
              + path
              + "); run the tests through Maven: mvn -pl e2e-tests verify");
    }
    return Path.of(path);
  }

  public EmbeddedConnectCluster cluster() {
    return cluster;
  }

  public String bootstrapServers() {
    return cluster.kafka().bootstrapServers();
  }

  public void createTopic(String topic, int partitions) {
    cluster.kafka().createTopic(topic, partitions);
  }

  /** Creates or reconfigures a connector and waits until it and {@code tasks} tasks run. */
  public void deploy(String name, Map<String, String> config, int tasks) {
    cluster.configureConnector(name, config);
    awaitRunning(name, tasks);
  }

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
