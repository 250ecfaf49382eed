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
 * holds the whole stack. Bringing it up needs Docker: that is an e2e test.
 */
class DockerComposeFileTest {
  private static final Path COMPOSE = Path.of("..", "docker-compose.yml");

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
        .contains("kafka", "connect", "postgres", "apicurio", "minio", "deploy");
  }

  @Test
  void mountsWhatTheBuildProducesAndDeploysTheShippedFiles() throws IOException {
    String yaml = Files.readString(COMPOSE);

    assertThat(yaml)
        .contains("./connector-configs/target/plugins/changelake-connect:/kafka/connect/")
        .contains("/opt/changelake/changelake-cli.jar")
        .contains("wal_level=logical")
        .contains("ENABLE_APICURIO_CONVERTERS");
    for (String line : yaml.lines().filter(l -> l.contains("/opt/connector-configs/")).toList()) {
      String file = line.substring(line.indexOf("/opt/connector-configs/") + 23).strip();
      if (file.endsWith(".json")) {
        assertThat(Path.of(file)).as("deployed by docker-compose").exists();
      }
    }
  }
}
