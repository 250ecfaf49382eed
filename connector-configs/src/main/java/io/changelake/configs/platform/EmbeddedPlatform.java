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

  // the fixed settings are resources (src/main/resources/platform): they read as a
  // server.properties
  private Properties brokerProps() {
    Properties props = new Properties();
    props.putAll(
        PropertyTemplate.load(
            "/platform/broker.properties",
            Map.of(
                "kafka.port",
                String.valueOf(settings.kafkaPort()),
                "controller.port",
                String.valueOf(settings.controllerPort()),
                "log.dirs",
                settings.kafkaLogDir().toString())));
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
    Map<String, String> worker =
        new HashMap<>(
            PropertyTemplate.load(
                "/platform/worker.properties",
                Map.of(
                    "bootstrap.servers",
                    settings.bootstrapServers(),
                    "connect.port",
                    String.valueOf(settings.connectPort()))));
    if (!settings.pluginDirs().isEmpty()) {
      worker.put(
          "plugin.path",
          settings.pluginDirs().stream().map(Path::toString).collect(Collectors.joining(",")));
    }
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
