package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumEnvelopes;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.connect.ConnectPlatform;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small REST-only CLI distribution as a user installs it: {@code
 * changelake-cli-<version>.tar.gz} unpacked (with and without the {@code lib/lake/} add-on) and
 * {@code bin/changelake} run as a child process against a real Connect worker with the Changelake
 * plugin, and against the table the sink it deployed wrote.
 */
class CliDistributionTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "cli.public.items";
  private static final int ROWS = 25;

  @TempDir static Path dir;

  private static ConnectPlatform platform;
  private static Path restOnly;
  private static Path withLake;

  @BeforeAll
  static void start() throws Exception {
    Path dist = PluginWorkers.folderFromProperty("changelake.cli.dist.dir", "the CLI's target");
    String version = System.getProperty("changelake.version");
    Path rest = dist.resolve("changelake-cli-" + version + ".tar.gz");
    Path lake = dist.resolve("changelake-cli-lake-" + version + ".tar.gz");
    restOnly = untar(dir.resolve("rest-only"), rest).resolve("changelake-cli-" + version);
    Path both = untar(dir.resolve("with-lake"), rest);
    untar(both, lake);
    withLake = both.resolve("changelake-cli-" + version);
    platform = PluginWorkers.start("cli-distribution");
  }

  @AfterAll
  static void stop() {
    if (platform != null) {
      platform.close();
    }
  }

  @Test
  void aSinkDeployedByTheDistributionShowsInStatusJsonAndItsTableInLake() throws Exception {
    String url = platform.cluster().workers().iterator().next().url().toString();
    platform.createTopic(TOPIC, 2);
    Path warehouse = dir.resolve("lake");
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, "cli\\.public\\..*", "cli");
    sink.put("tasks.max", "2");
    Path file = dir.resolve("cli-sink.json");
    Files.writeString(file, JSON.writeValueAsString(Map.of("name", "cli-sink", "config", sink)));

    Run deploy = run(restOnly, "deploy", file.toString(), "-c", url, "-o", "json");

    assertThat(deploy.code()).as(deploy.toString()).isZero();
    JsonNode deployed = JSON.readTree(deploy.out()).path("connectors").path(0);
    assertThat(deployed.path("name").asText()).isEqualTo("cli-sink");
    assertThat(deployed.path("action").asText()).isEqualTo("created");
    assertThat(deployed.path("outcome").asText()).isEqualTo("running");
    // progress goes to stderr while stdout holds the JSON document
    assertThat(deploy.err())
        .contains("waiting up to")
        .contains("cli-sink: connector RUNNING, tasks 2/2 RUNNING");

    Run status = run(restOnly, "status", "-c", url, "-o", "json");

    assertThat(status.code()).as(status.toString()).isZero();
    JsonNode connector = JSON.readTree(status.out()).path("connectors").path(0);
    assertThat(connector.path("name").asText()).isEqualTo("cli-sink");
    assertThat(connector.path("type").asText()).isEqualTo("sink");
    assertThat(connector.path("state").asText()).isEqualTo("RUNNING");
    assertThat(connector.path("tasks")).hasSize(2);
    connector.path("tasks").forEach(t -> assertThat(t.path("state").asText()).isEqualTo("RUNNING"));

    DebeziumEnvelopes.produceCreates(platform.bootstrapServers(), TOPIC, "items", ROWS);
    await()
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(
            () ->
                LakeTableReader.read(LakeTableReader.fileWarehouse(warehouse), "cli", "items")
                        .size()
                    == ROWS);

    String lake = warehouse.toUri().toString();
    Run tables = run(withLake, "lake", "tables", "-w", lake, "-o", "json");
    assertThat(tables.code()).as(tables.toString()).isZero();
    JsonNode table = JSON.readTree(tables.out()).path("tables").path(0);
    assertThat(table.path("table").asText()).isEqualTo("cli.items");
    assertThat(table.path("primary_keys").get(0).asText()).isEqualTo("id");
    assertThat(table.path("buckets").asText()).isEqualTo("2");
    assertThat(table.path("latest_snapshot").asLong()).isPositive();

    Run snapshots = run(withLake, "lake", "snapshots", "cli.items", "-w", lake, "-o", "json");
    assertThat(snapshots.code()).as(snapshots.toString()).isZero();
    List<Long> deltas = new ArrayList<>();
    JSON.readTree(snapshots.out())
        .path("snapshots")
        .forEach(
            s -> {
              if (s.path("commit_kind").asText().equals("APPEND")) {
                deltas.add(s.path("delta_record_count").asLong());
              }
            });
    assertThat(deltas.stream().mapToLong(Long::longValue).sum())
        .as("rows appended over all snapshots")
        .isEqualTo(ROWS);

    Run text = run(withLake, "lake", "snapshots", "cli.items", "-w", lake);
    assertThat(text.code()).as(text.toString()).isZero();
    assertThat(text.out()).contains("snapshot_id").contains("APPEND");

    Run files = run(withLake, "lake", "files", "cli.items", "-w", lake, "-o", "json");
    assertThat(files.code()).as(files.toString()).isZero();
    long filed = 0;
    for (JsonNode bucket : JSON.readTree(files.out()).path("buckets")) {
      filed += bucket.path("records").asLong();
    }
    assertThat(filed).as("rows in the data files").isGreaterThanOrEqualTo(ROWS);

    Run schemas = run(withLake, "lake", "schemas", "cli.items", "-w", lake, "-o", "json");
    assertThat(schemas.code()).as(schemas.toString()).isZero();
    List<String> columns = new ArrayList<>();
    JSON.readTree(schemas.out())
        .path("schemas")
        .path(0)
        .path("columns")
        .forEach(c -> columns.add(c.path("name").asText()));
    assertThat(columns).contains("id", "name");
  }

  @Test
  void withoutThePlatformOrLakeJarsTheCommandsSayWhatToInstall() throws Exception {
    Run up = run(restOnly, "up");
    assertThat(up.code()).as(up.toString()).isEqualTo(2);
    assertThat(up.err()).contains("needs the full CLI").contains("changelake-cli.jar up");

    Run lake = run(restOnly, "lake", "tables", "-w", dir.resolve("nowhere").toString());
    assertThat(lake.code()).as(lake.toString()).isEqualTo(2);
    assertThat(lake.err()).contains("lib/lake/").contains("changelake-cli-lake-");

    Run completion = run(restOnly, "completion");
    assertThat(completion.code()).as(completion.toString()).isZero();
    assertThat(completion.out()).contains("complete -F").contains("lake").contains("--output");
  }

  private record Run(int code, String out, String err) {}

  private static Run run(Path home, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/changelake").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    builder.environment().put("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC");
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    builder.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process process = builder.start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("changelake " + String.join(" ", args) + " did not end");
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static Path untar(Path into, Path archive) throws IOException, InterruptedException {
    Files.createDirectories(into);
    Process tar =
        new ProcessBuilder("tar", "xzf", archive.toString(), "-C", into.toString())
            .inheritIO()
            .start();
    assertThat(tar.waitFor()).as("tar xzf " + archive).isZero();
    return into;
  }
}
