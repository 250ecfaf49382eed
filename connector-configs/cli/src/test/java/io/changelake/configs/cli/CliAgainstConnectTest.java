package io.changelake.configs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.testkit.connect.ConnectPlatform;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI against a real in-process Connect cluster: what a user sees, and the exit codes. */
class CliAgainstConnectTest {
  private static ConnectPlatform connect;
  private static String url;

  @TempDir Path dir;

  @BeforeAll
  static void startConnect() {
    connect = ConnectPlatform.builder("cli-test").offsetFlushIntervalMs(500).start();
    url = connect.url();
  }

  @AfterAll
  static void stopConnect() {
    connect.close();
  }

  private Path file(String name, String topic, String extra) throws IOException {
    Path file = dir.resolve(name + ".json");
    Files.writeString(
        file,
        """
        {"name": "%s", "config": {
          "connector.class": "io.changelake.configs.CountingSourceConnector",
          "tasks.max": "1",
          "topic": "%s",
          "topic.creation.default.replication.factor": "1",
          "topic.creation.default.partitions": "1"%s
        }}
        """
            .formatted(name, topic, extra));
    return file;
  }

  private static CliRun cli(String... args) {
    String[] withUrl = new String[args.length + 2];
    System.arraycopy(args, 0, withUrl, 0, args.length);
    withUrl[args.length] = "--connect-url";
    withUrl[args.length + 1] = url;
    return CliRun.of(withUrl);
  }

  @Test
  void validatePrintsEachErrorNextToItsKey() throws IOException {
    Path bad = dir.resolve("bad.json");
    Files.writeString(
        bad,
        """
        {"name": "bad", "config": {
          "connector.class": "io.changelake.configs.CountingSourceConnector",
          "fail.on.start": "maybe"
        }}
        """);

    CliRun run = cli("validate", bad.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.FAILED);
    assertThat(run.out())
        .contains("topic: Missing required configuration \"topic\"")
        .contains("fail.on.start: Invalid value maybe")
        .contains("2 errors")
        .contains("0 of 1 connector files valid");
  }

  @Test
  void validateReportsAPluginTheWorkerDoesNotHave() throws IOException {
    Path unknown = dir.resolve("unknown.json");
    Files.writeString(
        unknown, "{\"name\": \"u\", \"config\": {\"connector.class\": \"com.example.Nope\"}}");

    CliRun run = cli("validate", unknown.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.FAILED);
    assertThat(run.out()).contains("connector.class:").contains("com.example.Nope");
  }

  @Test
  void deployIsIdempotentAndWaitsForRunningTasks() throws Exception {
    Path file = file("counting", "counting-topic", "");

    CliRun first = cli("deploy", file.toString(), "--settle", "1s");
    assertThat(first.exitCode()).as(first.all()).isEqualTo(ExitCodes.OK);
    assertThat(first.out())
        .contains("+ counting: created")
        .contains("counting (source): RUNNING")
        .contains("task 0   RUNNING");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> connect.cluster().kafka().endOffset(new TopicPartition("counting-topic", 0)) > 3);

    CliRun second = cli("deploy", file.toString(), "--settle", "1s");
    assertThat(second.exitCode()).as(second.all()).isEqualTo(ExitCodes.OK);
    assertThat(second.out()).contains("= counting: unchanged").doesNotContain("created");

    CliRun status = cli("status", "counting");
    assertThat(status.exitCode()).as(status.all()).isEqualTo(ExitCodes.OK);
    assertThat(status.out()).contains("counting (source): RUNNING").contains("task 0");
  }

  @Test
  void planShowsChangesButNeverSecretValues() throws Exception {
    Path file = file("planned", "planned-topic", ",\n\"api.password\": \"hunter2-literal\"");
    CliRun create = cli("plan", file.toString(), "--detailed-exitcode");
    assertThat(create.exitCode()).as(create.all()).isEqualTo(ExitCodes.CHANGES_PENDING);
    assertThat(create.out())
        .contains("+ planned: create")
        .contains("api.password = [hidden]")
        .doesNotContain("hunter2");

    assertThat(cli("deploy", file.toString(), "--no-wait").exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(cli("plan", file.toString(), "--detailed-exitcode").out())
        .contains("= planned: unchanged");

    Path changed =
        file("planned", "planned-topic-2", ",\n\"api.password\": \"${env:COUNTER_PASSWORD}\"");
    CliRun update = cli("plan", changed.toString(), "--detailed-exitcode");
    assertThat(update.exitCode()).as(update.all()).isEqualTo(ExitCodes.CHANGES_PENDING);
    assertThat(update.out())
        .contains("~ planned: update 2 keys")
        .contains("~ topic: planned-topic -> planned-topic-2")
        .contains("~ api.password: [hidden] -> ${env:COUNTER_PASSWORD}")
        .doesNotContain("hunter2");
    assertThat(cli("delete", "planned").exitCode()).isEqualTo(ExitCodes.OK);
  }

  @Test
  void deployOfAFailingConnectorShowsTheTraceAndExitsWithOne() throws IOException {
    Path file = file("failing", "failing-topic", ",\n\"fail.on.start\": \"true\"");

    CliRun run = cli("deploy", file.toString(), "--timeout", "60s");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.FAILED);
    assertThat(run.out())
        .contains("task 0   FAILED")
        .contains("boom: this task was told to fail by fail.on.start=true")
        .contains("! failing failed");
    CliRun status = cli("status", "failing");
    assertThat(status.exitCode()).as(status.all()).isEqualTo(ExitCodes.FAILED);
    assertThat(cli("delete", file.toString()).out()).contains("failing: deleted");
  }

  @Test
  void offsetsAreReadResetAndAlteredWhileStopped() throws Exception {
    Path file = file("offsets", "offsets-topic", "");
    assertThat(cli("deploy", file.toString(), "--settle", "1s").exitCode()).isEqualTo(ExitCodes.OK);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cli("offsets", "offsets").out().contains("\"next\""));

    CliRun notStopped = cli("offsets", "offsets", "--reset");
    assertThat(notStopped.exitCode()).as(notStopped.all()).isEqualTo(ExitCodes.FAILED);
    assertThat(notStopped.out()).contains("offsets is RUNNING").contains("changelake stop offsets");

    CliRun reset = cli("offsets", "offsets", "--reset", "--stop");
    assertThat(reset.exitCode()).as(reset.all()).isEqualTo(ExitCodes.OK);
    assertThat(reset.out()).contains("offsets: stopping...").contains("reset");
    assertThat(cli("offsets", "offsets").out()).doesNotContain("\"next\"");

    Path alter = dir.resolve("alter.json");
    Files.writeString(
        alter,
        "{\"offsets\": [{\"partition\": {\"counter\": \"offsets\"}, \"offset\": {\"next\": 1000}}]}");
    CliRun altered = cli("offsets", "offsets", "--alter", alter.toString(), "--resume");
    assertThat(altered.exitCode()).as(altered.all()).isEqualTo(ExitCodes.OK);
    assertThat(altered.out()).contains("resume requested");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cli("status", "offsets").out().contains("offsets (source): RUNNING"));
    // the task resumed from the altered offset: it now counts beyond 1000
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cli("offsets", "offsets").out().matches("(?s).*\"next\" : 10\\d\\d.*"));
  }

  @Test
  void pauseResumeRestartAndDelete() throws Exception {
    Path file = file("lifecycle", "lifecycle-topic", "");
    assertThat(cli("deploy", file.toString(), "--settle", "1s").exitCode()).isEqualTo(ExitCodes.OK);

    assertThat(cli("pause", "lifecycle").out()).contains("lifecycle: pause requested");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cli("status", "lifecycle").out().contains("lifecycle (source): PAUSED"));
    CliRun redeploy = cli("deploy", file.toString());
    assertThat(redeploy.exitCode()).as(redeploy.all()).isEqualTo(ExitCodes.OK);
    assertThat(redeploy.out()).contains("lifecycle is PAUSED");

    assertThat(cli("resume", "lifecycle").exitCode()).isEqualTo(ExitCodes.OK);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cli("status", "lifecycle").out().contains("task 0   RUNNING"));
    CliRun restart = cli("restart", "lifecycle");
    assertThat(restart.exitCode()).as(restart.all()).isEqualTo(ExitCodes.OK);
    assertThat(restart.out()).contains("lifecycle: restart requested");

    assertThat(cli("delete", "lifecycle").exitCode()).isEqualTo(ExitCodes.OK);
    // deletion is asynchronous: the status lingers for a moment
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cli("status", "lifecycle").exitCode() == ExitCodes.NOT_FOUND);
    CliRun gone = cli("status", "lifecycle");
    assertThat(gone.exitCode()).as(gone.all()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(gone.out()).contains("lifecycle: not found");
    assertThat(cli("pause", "lifecycle").exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
  }

  @Test
  void anUnreachableWorkerExitsWithThree() {
    CliRun run = CliRun.of("status", "--connect-url", "http://127.0.0.1:1");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.CONNECT_ERROR);
    assertThat(run.err()).contains("Cannot reach Kafka Connect at http://127.0.0.1:1");
  }

  @Test
  void aMalformedFileExitsWithTwoAndNamesTheProblem() throws IOException {
    Path broken = dir.resolve("broken.json");
    Files.writeString(broken, "{\"name\": \"x\", \"config\": {\"tasks.max\": [1]}}");

    CliRun run = cli("deploy", broken.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("broken.json").contains("'tasks.max' holds a JSON array");
  }

  @Test
  void helpListsTheExitCodes() {
    CliRun run = CliRun.of("deploy", "--help");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("--connect-url").contains("Exit codes:").contains("6  plan");
  }
}
