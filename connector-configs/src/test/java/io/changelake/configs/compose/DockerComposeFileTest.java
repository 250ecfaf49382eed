package io.changelake.configs.compose;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The root docker-compose.yml is valid for docker-compose (which checks it without an engine) and
 * holds the whole stack; the Connect image it builds copies the plugin the build makes instead of
 * mounting it where Debezium's entrypoint writes. Bringing it up needs Docker: that is an e2e test.
 */
class DockerComposeFileTest {
  private static final Path COMPOSE = Path.of("..", "docker-compose.yml");
  private static final Path CONNECT_IMAGE = Path.of("..", "deploy/docker/connect/Dockerfile");

  private static String compose(String... args) throws IOException, InterruptedException {
    List<String> command =
        new java.util.ArrayList<>(List.of("docker-compose", "-f", COMPOSE.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  private static boolean dockerComposeInstalled() {
    return Files.isExecutable(Path.of("/usr/bin/docker-compose"))
        || Files.isExecutable(Path.of("/usr/local/bin/docker-compose"));
  }

  @Test
  void isValidAndHoldsTheWholeStack() throws Exception {
    assertThat(dockerComposeInstalled())
        .as("docker-compose is not installed: run .ci/run or apt-get install -y docker-compose")
        .isTrue();

    compose("config", "-q");

    assertThat(compose("config", "--services").lines())
        .contains("kafka", "connect", "postgres", "apicurio", "s3", "deploy");
    // Prometheus and Grafana only with --profile monitoring
    assertThat(compose("--profile", "monitoring", "config", "--services").lines())
        .contains("prometheus", "grafana");
  }

  @Test
  void pinsEveryImageToAVersion() throws IOException {
    List<String> images =
        Files.readString(COMPOSE)
            .lines()
            .map(String::strip)
            .filter(l -> l.startsWith("image:"))
            .map(l -> l.substring("image:".length()).strip())
            .toList();
    assertThat(images).hasSizeGreaterThanOrEqualTo(8);
    for (String image : images) {
      if (image.startsWith("changelake/")) {
        continue; // built here from deploy/docker/connect
      }
      assertThat(image).as("image tag").matches(".+:[^:]*\\d[^:]*").doesNotEndWith(":latest");
      // MinIO's images are no longer published
      assertThat(image).doesNotContain("minio");
    }
  }

  @Test
  void mountsWhatTheBuildProducesAndDeploysTheShippedFiles() throws IOException {
    String yaml = Files.readString(COMPOSE);

    assertThat(yaml)
        .contains("dockerfile: deploy/docker/connect/Dockerfile")
        .contains("./connector-configs/distribution/target:/opt/changelake:ro")
        .contains("/opt/changelake/changelake-cli.jar")
        .contains("wal_level=logical")
        .contains("KAFKA_LOG_DIRS: /var/lib/kafka/data")
        .contains("CLUSTER_ID:");
    // Debezium's entrypoint links files into every plugin folder when this is set: never a
    // mount under /kafka/connect, and the converter comes as its own plugin instead
    assertThat(yaml.lines().filter(l -> !l.strip().startsWith("#")))
        .noneMatch(l -> l.contains("ENABLE_APICURIO_CONVERTERS:"))
        .noneMatch(l -> l.contains(":/kafka/connect"));
    String dockerfile = Files.readString(CONNECT_IMAGE);
    assertThat(dockerfile)
        .contains("FROM quay.io/debezium/connect:${DEBEZIUM_VERSION}")
        .contains(
            "COPY --chown=kafka:kafka connector-configs/target/plugins/changelake-connect"
                + " $KAFKA_CONNECT_PLUGINS_DIR/changelake-connect")
        .contains("$KAFKA_CONNECT_PLUGINS_DIR/apicurio-converter");
    // the build context is the repository root: .dockerignore must let the copied paths through
    String dockerignore = Files.readString(Path.of("..", ".dockerignore"));
    assertThat(dockerignore)
        .contains("!connector-configs/target/plugins/changelake-connect")
        .contains("!deploy/monitoring/jmx-exporter");
    for (String line : yaml.lines().filter(l -> l.contains("/opt/connector-configs/")).toList()) {
      String file = line.substring(line.indexOf("/opt/connector-configs/") + 23).strip();
      if (file.endsWith(".json")) {
        assertThat(Path.of(file)).as("deployed by docker-compose").exists();
      }
    }
  }
}
