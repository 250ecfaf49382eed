package io.changelake.e2e.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The repository's docker-compose.yml brought up for real: the one-shot deploy service deploys
 * every connector file, they all run, and a row inserted into the source PostgreSQL travels
 * Debezium -> Kafka -> Changelake sink -> Paimon on S3 -> Changelake source -> Debezium JDBC sink
 * into the mirror PostgreSQL. Runs only where a Docker engine exists (none runs on the CI machines
 * of this project; there `DockerComposeFileTest` in connector-configs checks the file's syntax).
 */
@Testcontainers(disabledWithoutDocker = true)
class DockerComposeStackTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Container
  static final ComposeContainer STACK =
      new ComposeContainer(new File(ROOT.resolve("docker-compose.yml").toString()))
          .withExposedService("connect", 8083, Wait.forHttp("/connectors").forStatusCode(200))
          .withExposedService("postgres", 5432, Wait.forListeningPort())
          .withExposedService("postgres-mirror", 5432, Wait.forListeningPort())
          .withStartupTimeout(Duration.ofMinutes(10));

  @Test
  void deploysEveryConnectorAndMirrorsARow() throws Exception {
    String connect =
        "http://"
            + STACK.getServiceHost("connect", 8083)
            + ":"
            + STACK.getServicePort("connect", 8083);
    HttpClient http = HttpClient.newHttpClient();
    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              String status =
                  http.send(
                          HttpRequest.newBuilder(URI.create(connect + "/connectors?expand=status"))
                              .build(),
                          HttpResponse.BodyHandlers.ofString())
                      .body();
              assertThat(status)
                  .contains(
                      "shop-postgres-cdc",
                      "shop-lake-sink",
                      "shop-lake-changelog",
                      "shop-mirror-jdbc-sink")
                  .doesNotContain("\"FAILED\"");
            });

    String password = System.getenv().getOrDefault("POSTGRES_PASSWORD", "changelake-dev-only");
    try (Connection source =
            DriverManager.getConnection(jdbc("postgres", "shop"), "changelake", password);
        Statement statement = source.createStatement()) {
      statement.execute(
          "INSERT INTO customers VALUES (4242, 'Grace Hopper', 'grace@example.com', 'gold')");
    }

    String mirrorPassword =
        Files.readString(ROOT.resolve("connector-configs/docker/secrets/mirror-password")).strip();
    await()
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofSeconds(5))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              try (Connection mirror =
                      DriverManager.getConnection(
                          jdbc("postgres-mirror", "shop_mirror"), "mirror", mirrorPassword);
                  Statement statement = mirror.createStatement();
                  ResultSet rows =
                      statement.executeQuery("SELECT name, email FROM customers WHERE id = 4242")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).isEqualTo("Grace Hopper");
                assertThat(rows.getString(2)).isEqualTo("grace@example.com");
              }
            });
  }

  private static String jdbc(String service, String database) {
    return "jdbc:postgresql://"
        + STACK.getServiceHost(service, 5432)
        + ":"
        + STACK.getServicePort(service, 5432)
        + "/"
        + database;
  }
}
