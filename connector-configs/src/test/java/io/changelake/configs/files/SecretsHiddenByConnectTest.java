package io.changelake.configs.files;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.lsm.catalog.CatalogCredentials;
import io.changelake.sink.ChangelakeSinkConnector;
import io.changelake.source.ChangelakeSourceConnector;
import io.changelake.testkit.connect.ConnectPlatform;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials given to the connectors as literal {@code paimon.*} values stay out of what a real
 * Connect worker shows: its validation answers ({@code [hidden]}) and its log at INFO, the level
 * workers run at, while the connector starts, opens its catalog and runs. (Connect's {@code GET
 * /connectors/<name>/config} returns configs as stored; that is why the docs steer to config
 * providers.)
 */
class SecretsHiddenByConnectTest {
  /** A literal per credential key the connectors declare, and one spelling they do not declare. */
  private static final Map<String, String> SECRETS = new LinkedHashMap<>();

  static {
    int i = 0;
    for (CatalogCredentials.Option option : CatalogCredentials.OPTIONS) {
      SECRETS.put(option.key(), "literal-secret-" + (++i) + "-x9q");
    }
    SECRETS.put("paimon.fs.s3a.secret.key", "literal-secret-undeclared-x9q");
  }

  private static final List<String> LOG = new CopyOnWriteArrayList<>();
  private static ConnectPlatform connect;
  private static String url;
  private static Appender capture;
  private static Level rootLevel;

  @TempDir static Path dir;

  @BeforeAll
  static void startConnectWithTheLogCaptured() {
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    Configuration configuration = context.getConfiguration();
    capture =
        new AbstractAppender("secrets-capture", null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            LOG.add(
                event.getLoggerName()
                    + " "
                    + event.getMessage().getFormattedMessage()
                    + (event.getThrown() == null ? "" : " " + event.getThrown()));
          }
        };
    capture.start();
    configuration.addAppender(capture);
    LoggerConfig root = configuration.getRootLogger();
    rootLevel = root.getLevel();
    // everything at INFO into the capture, the console as quiet as log4j2-test.xml keeps it
    List<Appender> console = List.copyOf(root.getAppenders().values());
    console.forEach(a -> root.removeAppender(a.getName()));
    console.forEach(a -> root.addAppender(a, Level.WARN, null));
    root.addAppender(capture, Level.INFO, null);
    root.setLevel(Level.INFO);
    context.updateLoggers();

    connect = ConnectPlatform.builder("secrets-test").offsetFlushIntervalMs(500).start();
    url = connect.url();
  }

  @AfterAll
  static void stop() {
    if (connect != null) {
      connect.close();
    }
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    LoggerConfig root = context.getConfiguration().getRootLogger();
    root.removeAppender(capture.getName());
    root.setLevel(rootLevel);
    context.updateLoggers();
  }

  private static Map<String, String> sinkConfig() {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("connector.class", ChangelakeSinkConnector.class.getName());
    config.put("tasks.max", "1");
    config.put("topics", "secrets-test-topic");
    config.put("paimon.warehouse", dir.resolve("lake").toUri().toString());
    config.putAll(SECRETS);
    return config;
  }

  // through a plain client: the test cluster's own REST helpers log the answers they get, and
  // Connect answers a config PUT with the config as stored
  private static HttpResponse<String> put(String path, Map<String, String> body) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url).resolve(path))
                .header("Content-Type", "application/json")
                .PUT(
                    HttpRequest.BodyPublishers.ofString(
                        new ObjectMapper().writeValueAsString(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode validate(String connectorClass, Map<String, String> config)
      throws Exception {
    String simpleName = connectorClass.substring(connectorClass.lastIndexOf('.') + 1);
    HttpResponse<String> response =
        put("connector-plugins/" + simpleName + "/config/validate", config);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    SECRETS
        .values()
        .forEach(
            secret ->
                assertThat(response.body())
                    .as("validation answer of %s", simpleName)
                    .doesNotContain(secret));
    return new ObjectMapper().readTree(response.body());
  }

  private static void assertDeclaredCredentialsShownHidden(JsonNode answer) {
    Map<String, String> shown = new LinkedHashMap<>();
    for (JsonNode config : answer.path("configs")) {
      shown.put(
          config.path("value").path("name").asText(), config.path("value").path("value").asText());
    }
    for (CatalogCredentials.Option option : CatalogCredentials.OPTIONS) {
      assertThat(shown).as("validation answer").containsEntry(option.key(), "[hidden]");
    }
  }

  @Test
  void validationAnswersOfBothConnectorsShowCredentialsAsHidden() throws Exception {
    assertDeclaredCredentialsShownHidden(
        validate(ChangelakeSinkConnector.class.getName(), sinkConfig()));

    Map<String, String> source = new LinkedHashMap<>();
    source.put("connector.class", ChangelakeSourceConnector.class.getName());
    source.put("tasks.max", "1");
    source.put("paimon.warehouse", dir.resolve("lake").toUri().toString());
    source.put("tables", "shop.customers");
    source.putAll(SECRETS);
    assertDeclaredCredentialsShownHidden(
        validate(ChangelakeSourceConnector.class.getName(), source));
  }

  @Test
  void theWorkersLogNeverContainsTheCredentialsOfARunningSink() throws Exception {
    HttpResponse<String> created = put("connectors/secrets-sink/config", sinkConfig());
    assertThat(created.statusCode()).isEqualTo(201);
    connect
        .cluster()
        .assertions()
        .assertConnectorAndExactlyNumTasksAreRunning("secrets-sink", 1, "the sink did not start");
    // the task has opened its catalog; its config log is written by then
    assertThat(LOG)
        .as("the capture sees the sink's config log, with the credential keys masked")
        .anyMatch(line -> line.contains("ChangelakeSinkConfig values"))
        .anyMatch(line -> line.contains("paimon.s3.secret-key = [hidden]"));
    connect.delete("secrets-sink");
    for (String secret : SECRETS.values()) {
      assertThat(LOG).as("worker log lines").noneMatch(line -> line.contains(secret));
    }
  }
}
