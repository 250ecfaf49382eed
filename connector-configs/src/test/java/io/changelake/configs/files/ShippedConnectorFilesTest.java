package io.changelake.configs.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.sink.ChangelakeSinkConnector;
import io.changelake.source.ChangelakeSourceConnector;
import io.debezium.connector.postgresql.PostgresConnector;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.junit.jupiter.api.Test;

/** Every connector file shipped in connector-configs/ is ready to deploy. */
class ShippedConnectorFilesTest {
  /** Surefire runs in the module directory, where the files live. */
  private static final List<ConnectorFile> FILES = ConnectorFiles.load(List.of(Path.of(".")));

  /** Keys each connector cannot run without, for plugins that are not on the test class path. */
  private static final Map<String, List<String>> REQUIRED =
      Map.of(
          "io.debezium.connector.mysql.MySqlConnector",
          List.of(
              "database.hostname",
              "database.user",
              "database.password",
              "database.server.id",
              "topic.prefix",
              "schema.history.internal.kafka.bootstrap.servers",
              "schema.history.internal.kafka.topic"),
          "io.debezium.connector.mariadb.MariaDbConnector",
          List.of(
              "database.hostname",
              "database.user",
              "database.password",
              "database.server.id",
              "topic.prefix",
              "schema.history.internal.kafka.bootstrap.servers",
              "schema.history.internal.kafka.topic"),
          "io.debezium.connector.jdbc.JdbcSinkConnector",
          List.of("connection.url", "connection.username", "connection.password"));

  @Test
  void everyUseCaseHasAFile() {
    assertThat(FILES.stream().map(ConnectorFile::connectorClass))
        .contains(
            "io.debezium.connector.postgresql.PostgresConnector",
            "io.debezium.connector.mysql.MySqlConnector",
            "io.debezium.connector.mariadb.MariaDbConnector",
            "io.changelake.sink.ChangelakeSinkConnector",
            "io.changelake.source.ChangelakeSourceConnector",
            "io.debezium.connector.jdbc.JdbcSinkConnector");
    assertThat(
            FILES.stream()
                .filter(f -> f.connectorClass().endsWith("ChangelakeSinkConnector"))
                .map(f -> f.config().get("table.merge-engine")))
        .contains("deduplicate", "partial-update");
    assertThat(FILES.stream().map(f -> f.config().get("plugin.name"))).contains("pgoutput");
  }

  @Test
  void secretsComeOnlyFromConfigProviders() {
    for (ConnectorFile file : FILES) {
      file.config()
          .forEach(
              (key, value) -> {
                if (Secrets.isSensitive(key)) {
                  assertThat(Secrets.isReference(value))
                      .as(
                          "%s: '%s' must be a ${env:...} or ${file:...} reference",
                          file.source(), key)
                      .isTrue();
                }
              });
    }
  }

  @Test
  void changelakeFilesPassTheConnectorsOwnValidation() {
    for (ConnectorFile file : FILES) {
      Connector connector =
          switch (file.connectorClass()) {
            case "io.changelake.sink.ChangelakeSinkConnector" -> new ChangelakeSinkConnector();
            case "io.changelake.source.ChangelakeSourceConnector" ->
                new ChangelakeSourceConnector();
            default -> null;
          };
      if (connector != null) {
        assertThat(errors(connector.validate(file.configToSend())))
            .as("validation errors of %s", file.source())
            .isEmpty();
      }
    }
  }

  @Test
  void postgresFilePassesDebeziumsConfigDef() {
    for (ConnectorFile file : FILES) {
      if (file.connectorClass().equals(PostgresConnector.class.getName())) {
        // the ConfigDef's own validators; connecting to the database is left to the worker
        List<ConfigValue> values = new PostgresConnector().config().validate(file.configToSend());
        assertThat(
                values.stream()
                    .filter(v -> file.config().containsKey(v.name()))
                    .filter(v -> !v.errorMessages().isEmpty())
                    .map(v -> v.name() + ": " + v.errorMessages()))
            .as("%s", file.source())
            .isEmpty();
      }
    }
  }

  @Test
  void otherFilesHaveTheKeysTheirConnectorRequires() {
    for (ConnectorFile file : FILES) {
      List<String> required = REQUIRED.get(file.connectorClass());
      if (required != null) {
        assertThat(file.config())
            .as("%s", file.source())
            .containsKeys(required.toArray(String[]::new));
      }
      if (file.connectorClass().contains("Sink")) {
        assertThat(file.config().containsKey("topics") || file.config().containsKey("topics.regex"))
            .as("%s names its topics", file.source())
            .isTrue();
      }
    }
  }

  private static Map<String, List<String>> errors(Config config) {
    return config.configValues().stream()
        .filter(v -> !v.errorMessages().isEmpty())
        .collect(Collectors.toMap(ConfigValue::name, ConfigValue::errorMessages));
  }
}
