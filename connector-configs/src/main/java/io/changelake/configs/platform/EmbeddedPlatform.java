package io.changelake.configs.platform;

import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectEndpoint;
import io.changelake.configs.rest.ConnectRestException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;

/**
 * A single-node KRaft broker and one distributed-mode Connect worker in this JVM, bound to
 * 127.0.0.1, with all state under one directory: stopping and starting again on the same directory
 * keeps topics, connectors, offsets and tables.
 */
public final class EmbeddedPlatform implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);

  private final PlatformSettings settings;
  private KafkaRaftServer broker;
  private Connect<?> connect;
  private boolean closed;

  private EmbeddedPlatform(PlatformSettings settings) {
    this.settings = settings;
  }

  /** Starts broker and worker and returns once Connect's REST API answers. */
  public static EmbeddedPlatform start(PlatformSettings settings) {
    Ports.requireFree(settings.kafkaPort(), "Kafka broker", "--kafka-port");
    Ports.requireFree(settings.controllerPort(), "KRaft controller", "--controller-port");
    Ports.requireFree(settings.connectPort(), "Connect REST API", "--connect-port");
    EmbeddedPlatform platform = new EmbeddedPlatform(settings);
    try {
      platform.startBroker();
      platform.startConnect();
      return platform;
    } catch (RuntimeException e) {
      platform.close();
      throw e;
    }
  }

  public PlatformSettings settings() {
    return settings;
  }

  public ConnectClient client() {
    return new ConnectClient(ConnectEndpoint.plain(settings.connectUrl()));
  }

  private void startBroker() {
    Properties props = brokerProps();
    Path logDir = settings.kafkaLogDir();
    try {
      Files.createDirectories(logDir);
      if (!Files.exists(logDir.resolve("meta.properties"))) {
        format(props);
      }
    } catch (IOException e) {
      throw new PlatformException("Cannot prepare " + logDir + ": " + e.getMessage(), e);
    }
    broker = new KafkaRaftServer(new KafkaConfig(props), Time.SYSTEM);
    broker.startup();
    awaitBroker();
  }

  private Properties brokerProps() {
    Properties props = new Properties();
    int kafka = settings.kafkaPort();
    int controller = settings.controllerPort();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controller);
    props.put(
        "listeners", "PLAINTEXT://127.0.0.1:" + kafka + ",CONTROLLER://127.0.0.1:" + controller);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + kafka);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("log.dirs", settings.kafkaLogDir().toString());
    props.put("num.partitions", "1");
    props.put("auto.create.topics.enable", "true");
    props.put("offsets.topic.replication.factor", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    return props;
  }

  private void format(Properties props) throws IOException {
    Path config = settings.stateDir().resolve("kafka-format.properties");
    try (var out = Files.newBufferedWriter(config)) {
      props.store(out, "used once to format the KRaft log directory");
    }
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    int code =
        StorageTool.execute(
            new String[] {
              "format",
              // Kafka's own ids never start with '-', which the argument parser would take for an
              // option; the '=' form keeps it safe regardless
              "--cluster-id=" + Uuid.randomUuid(),
              "--config",
              config.toString(),
              "--ignore-formatted"
            },
            new PrintStream(output, true, StandardCharsets.UTF_8));
    if (code != 0) {
      throw new PlatformException(
          "Formatting the Kafka log directory "
              + settings.kafkaLogDir()
              + " failed: "
              + output.toString(StandardCharsets.UTF_8));
    }
  }

  private void awaitBroker() {
    Map<String, Object> config = new HashMap<>();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    try (Admin admin = Admin.create(config)) {
      admin.describeCluster().nodes().get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new PlatformException(
          "The Kafka broker on " + settings.bootstrapServers() + " did not become ready", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PlatformException("Interrupted while starting the broker", e);
    }
  }

  private void startConnect() {
    Map<String, String> worker = workerProps();
    connect = new ConnectDistributed().startConnect(worker);
    ConnectClient client = client();
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      try {
        client.connectors();
        return;
      } catch (ConnectRestException e) {
        if (System.nanoTime() > deadline) {
          throw new PlatformException(
              "Connect did not answer on " + settings.connectUrl() + ": " + e.getMessage(), e);
        }
      }
      sleep(Duration.ofMillis(250));
    }
  }

  private Map<String, String> workerProps() {
    Map<String, String> worker = new HashMap<>();
    worker.put("bootstrap.servers", settings.bootstrapServers());
    worker.put("group.id", "changelake-connect");
    worker.put("config.storage.topic", "_changelake-connect-configs");
    worker.put("offset.storage.topic", "_changelake-connect-offsets");
    worker.put("status.storage.topic", "_changelake-connect-status");
    worker.put("config.storage.replication.factor", "1");
    worker.put("offset.storage.replication.factor", "1");
    worker.put("status.storage.replication.factor", "1");
    worker.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    worker.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    worker.put("listeners", "http://127.0.0.1:" + settings.connectPort());
    worker.put("rest.advertised.host.name", "127.0.0.1");
    worker.put("rest.advertised.port", String.valueOf(settings.connectPort()));
    if (!settings.pluginDirs().isEmpty()) {
      worker.put(
          "plugin.path",
          settings.pluginDirs().stream().map(Path::toString).collect(Collectors.joining(",")));
    }
    worker.put("plugin.discovery", "service_load");
    worker.put("offset.flush.interval.ms", "1000");
    worker.put("scheduled.rebalance.max.delay.ms", "0");
    // connector files reference secrets as ${env:...} and ${file:...}: the worker resolves them
    worker.put("config.providers", "env,file");
    worker.put(
        "config.providers.env.class",
        "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
    worker.put(
        "config.providers.file.class",
        "org.apache.kafka.common.config.provider.FileConfigProvider");
    worker.putAll(settings.workerOverrides());
    return worker;
  }

  /**
   * Stops Connect first and waits for its herder to finish, then the broker: a herder still running
   * while the broker goes away blocks on it and the JVM never exits.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    PlatformException failure = null;
    if (connect != null) {
      try {
        connect.stop();
        connect.awaitStop();
        connect.herderTask().get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        failure = new PlatformException("Connect did not stop cleanly", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = new PlatformException("Interrupted while stopping Connect", e);
      } catch (CancellationException e) {
        // the herder task was cancelled by Connect's own shutdown: it has finished
      }
    }
    if (broker != null) {
      broker.shutdown();
      broker.awaitShutdown();
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PlatformException("Interrupted while starting the platform", e);
    }
  }
}
