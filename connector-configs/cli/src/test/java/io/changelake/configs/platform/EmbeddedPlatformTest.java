package io.changelake.configs.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.configs.cli.ChangelakeCli;
import io.changelake.configs.cli.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded platform keeps topics, connectors and offsets across a stop and a start. */
class EmbeddedPlatformTest {
  @TempDir Path dir;

  private static String cli(String... args) {
    StringWriter out = new StringWriter();
    int code = ChangelakeCli.run(new PrintWriter(out, true), new PrintWriter(out, true), args);
    return code + "\n" + out;
  }

  private static long endOffset(String bootstrap, String topic) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      TopicPartition tp = new TopicPartition(topic, 0);
      return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
    }
  }

  private static Set<String> topics(String bootstrap) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      return admin.listTopics().names().get();
    }
  }

  @Test
  void aRestartKeepsTopicsConnectorsAndOffsets() throws Exception {
    PlatformSettings settings =
        new PlatformSettings(
            dir.resolve("state"), Ports.free(), Ports.free(), Ports.free(), List.of(), Map.of());
    Path connector = dir.resolve("counting.json");
    Files.writeString(
        connector,
        """
        {"name": "counting", "config": {
          "connector.class": "io.changelake.configs.CountingSourceConnector",
          "topic": "numbers",
          "topic.creation.default.replication.factor": "1",
          "topic.creation.default.partitions": "1"
        }}
        """);

    long before;
    try (EmbeddedPlatform platform = EmbeddedPlatform.start(settings)) {
      String deploy =
          cli(
              "deploy",
              connector.toString(),
              "--connect-url",
              settings.connectUrl(),
              "--settle",
              "1s");
      assertThat(deploy).startsWith(ExitCodes.OK + "\n").contains("counting (source): RUNNING");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  cli("offsets", "counting", "--connect-url", settings.connectUrl())
                      .contains("\"next\""));
      before = endOffset(settings.bootstrapServers(), "numbers");
      assertThat(before).isPositive();
    }

    try (EmbeddedPlatform platform = EmbeddedPlatform.start(settings)) {
      assertThat(topics(settings.bootstrapServers())).contains("numbers");
      assertThat(endOffset(settings.bootstrapServers(), "numbers")).isGreaterThanOrEqualTo(before);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  cli("status", "counting", "--connect-url", settings.connectUrl())
                      .contains("task 0   RUNNING"));
      // the task resumed from its committed offset: the topic grows past what it held
      long resumedFrom = before;
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> endOffset(settings.bootstrapServers(), "numbers") > resumedFrom + 2);
      String offsets = cli("offsets", "counting", "--connect-url", settings.connectUrl());
      long next = Long.parseLong(offsets.replaceAll("(?s).*\"next\" : (\\d+).*", "$1"));
      assertThat(next).isGreaterThan(before - 5);
    }
  }

  @Test
  void upStopsCleanlyOnSigterm() throws Exception {
    Path state = dir.resolve("up-state");
    ProcessBuilder builder =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m",
            // where the build left the plugin archive (set by this module's surefire config)
            "-D"
                + PluginInstaller.HOME_PROPERTY
                + "="
                + System.getProperty(PluginInstaller.HOME_PROPERTY, ""),
            "-cp",
            System.getProperty("java.class.path"),
            ChangelakeCli.class.getName(),
            "up",
            "--dir",
            state.toString(),
            "--kafka-port",
            String.valueOf(Ports.free()),
            "--controller-port",
            String.valueOf(Ports.free()),
            "--connect-port",
            String.valueOf(Ports.free()));
    Path output = dir.resolve("up.out");
    builder.redirectErrorStream(true).redirectOutput(output.toFile());
    Process up = builder.start();
    try {
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> read(output).contains("Changelake platform is up."));
      up.destroy(); // SIGTERM, as Ctrl-C would
      await().atMost(Duration.ofMinutes(1)).until(() -> !up.isAlive());
    } finally {
      up.destroyForcibly();
    }
    assertThat(read(output))
        .contains("Stopping Connect, then Kafka ...")
        .contains("Stopped. State kept in");
    assertThat(state.resolve("kafka").resolve("meta.properties")).exists();
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file) : "";
  }
}
