package io.changelake.e2e.connect;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.awaitility.Awaitility;

/**
 * A one-node KRaft broker (broker and controller in one process) in its own JVM ({@code
 * kafka.Kafka} with a properties file), on fixed loopback ports and a log directory that outlives
 * the process: a test can stop it gracefully or kill it with SIGKILL, keep it away for as long as
 * it likes, and start it again where its clients left it, with every topic, offset and transaction
 * state it had. (The in-process test kit cannot do this: a broker it restarts does not come back on
 * its port.) Topics are never auto-created; transactions work on the one broker.
 */
public final class BrokerProcess implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private final Path dir;
  private final Path propsFile;
  private final int port;
  private final List<Path> logs = new ArrayList<>();
  private Process process;

  private BrokerProcess(Path dir, Path propsFile, int port) {
    this.dir = dir;
    this.propsFile = propsFile;
    this.port = port;
  }

  /** Formats a log directory under {@code dir} and starts the broker on two free ports. */
  public static BrokerProcess start(Path dir) {
    try {
      Files.createDirectories(dir);
      int port = freePort();
      int controllerPort = freePort();
      Properties props = new Properties();
      props.put("process.roles", "broker,controller");
      props.put("node.id", "1");
      props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
      props.put(
          "listeners",
          "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
      props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
      props.put("controller.listener.names", "CONTROLLER");
      props.put("inter.broker.listener.name", "PLAINTEXT");
      props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
      props.put("log.dirs", dir.resolve("logs").toString());
      props.put("auto.create.topics.enable", "false");
      props.put("num.partitions", "1");
      props.put("offsets.topic.replication.factor", "1");
      // 50 partitions each (the defaults) take seconds to create and to load after a restart
      props.put("offsets.topic.num.partitions", "5");
      props.put("transaction.state.log.num.partitions", "5");
      props.put("transaction.state.log.replication.factor", "1");
      props.put("transaction.state.log.min.isr", "1");
      props.put("share.coordinator.state.topic.replication.factor", "1");
      props.put("share.coordinator.state.topic.min.isr", "1");
      props.put("group.initial.rebalance.delay.ms", "0");
      Path file = dir.resolve("server.properties");
      try (Writer w = Files.newBufferedWriter(file)) {
        props.store(w, "KRaft broker for an e2e test");
      }
      format(file);
      BrokerProcess broker = new BrokerProcess(dir, file, port);
      broker.launch();
      return broker;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void format(Path config) {
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    int code =
        StorageTool.execute(
            new String[] {
              "format", "--cluster-id=" + Uuid.randomUuid(), "--config", config.toString()
            },
            new PrintStream(output, true, StandardCharsets.UTF_8));
    if (code != 0) {
      throw new IllegalStateException(
          "formatting the broker's log directory failed: "
              + output.toString(StandardCharsets.UTF_8));
    }
  }

  /** Starts the JVM (again, after {@link #stop} or {@link #kill}) and waits until it serves. */
  public void launch() {
    if (alive()) {
      throw new IllegalStateException("broker already running");
    }
    try {
      Path log = dir.resolve("broker-" + (logs.size() + 1) + ".log");
      logs.add(log);
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> cmd =
          List.of(
              java,
              "-Xmx384m",
              "-XX:+UseSerialGC",
              "-XX:TieredStopAtLevel=1",
              "-cp",
              System.getProperty("java.class.path"),
              "kafka.Kafka",
              propsFile.toString());
      process =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try {
        awaitReady(log);
      } catch (RuntimeException e) {
        kill(); // a broker that never became ready must not outlive the test
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitReady(Path log) {
    Map<String, Object> config =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
    try (Admin admin = Admin.create(config)) {
      Awaitility.await("broker ready (log " + log + ")")
          .atMost(READY_TIMEOUT)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException(
                      "broker exited with "
                          + process.exitValue()
                          + "; log "
                          + log
                          + ":\n"
                          + tail(log));
                }
                try {
                  return !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
                } catch (ExecutionException | TimeoutException notYet) {
                  return false; // still starting
                }
              });
    }
  }

  /** A graceful stop (SIGTERM: controlled shutdown, logs flushed). */
  public void stop() {
    end(false);
  }

  /** SIGKILL: nothing flushed or closed; the next start recovers the logs. */
  public void kill() {
    end(true);
  }

  private void end(boolean forcibly) {
    if (!alive()) {
      return;
    }
    try {
      if (forcibly) {
        process.destroyForcibly();
      } else {
        process.destroy();
      }
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** Log files of every launch, newest last, for failure messages. */
  public List<Path> logs() {
    return List.copyOf(logs);
  }

  @Override
  public void close() {
    stop();
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
