package io.changelake.console.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectEndpoint;
import io.changelake.console.ConsoleSettings;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's JSON API against a fake Connect REST API and an empty local lake. */
class ConsoleServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PASSWORD = "pg-s3cr3t-value";
  private static final String TOPIC = "shop.public.orders";

  @TempDir Path warehouse;

  private FakeConnect connect;
  private final List<ConsoleServer> servers = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void connectors() throws Exception {
    connect = new FakeConnect();
    connect.connectors.put(
        "shop-pg",
        new FakeConnect.Connector(
            Map.of(
                "connector.class", "io.debezium.connector.postgresql.PostgresConnector",
                "database.hostname", "db",
                "database.password", PASSWORD,
                "topic.prefix", "shop"),
            "source",
            List.of(
                FakeConnect.task(
                    0,
                    "FAILED",
                    "org.postgresql.util.PSQLException: password authentication failed (tried "
                        + PASSWORD
                        + ")\n\tat org.postgresql.Driver")),
            List.of(TOPIC)));
    connect.connectors.put(
        "shop-sink",
        new FakeConnect.Connector(
            Map.of(
                "connector.class", "io.changelake.sink.ChangelakeSinkConnector",
                "topics.regex", "shop\\..*",
                "paimon.warehouse", warehouse.toUri().toString(),
                "paimon.s3.secret-key", "s3-secret-key-value"),
            "sink",
            List.of(FakeConnect.task(0, "RUNNING", null)),
            List.of(TOPIC)));
  }

  @AfterEach
  void stop() {
    servers.forEach(ConsoleServer::close);
    connect.close();
  }

  @Test
  void thePipelineGraphLinksTheCaptureToTheSinkThroughTheirTopicWithEachState() throws Exception {
    JsonNode pipelines = get(console(false), "/api/pipelines").path("pipelines");

    assertThat(pipelines).hasSize(1);
    JsonNode pipeline = pipelines.get(0);
    List<String> ids = new ArrayList<>();
    pipeline.path("nodes").forEach(n -> ids.add(n.path("id").asText()));
    assertThat(ids)
        .containsExactlyInAnyOrder("connector:shop-pg", "connector:shop-sink", "topic:" + TOPIC);
    assertThat(pipeline.path("edges").toString())
        .contains("{\"from\":\"connector:shop-pg\",\"to\":\"topic:" + TOPIC + "\"}")
        .contains("{\"from\":\"topic:" + TOPIC + "\",\"to\":\"connector:shop-sink\"}");
    JsonNode capture = node(pipeline, "connector:shop-pg");
    assertThat(capture.path("role").asText()).isEqualTo("change capture");
    assertThat(capture.path("tasks").get(0).path("state").asText()).isEqualTo("FAILED");
    assertThat(capture.path("tasks").get(0).path("trace").asText())
        .startsWith("org.postgresql.util.PSQLException: password authentication failed");
  }

  @Test
  void secretsInConfigsAndTracesNeverReachTheBrowser() throws Exception {
    ConsoleServer console = console(false);
    String connector = raw(console, "/api/connectors/shop-pg").body();
    String sink = raw(console, "/api/connectors/shop-sink").body();
    String pipelines = raw(console, "/api/pipelines").body();

    assertThat(connector + sink + pipelines)
        .doesNotContain(PASSWORD)
        .doesNotContain("s3-secret-key-value");
    JsonNode config = JSON.readTree(connector).path("config");
    assertThat(entry(config, "database.password").path("value").asText()).isEqualTo("[hidden]");
    assertThat(entry(config, "database.password").path("masked").asBoolean()).isTrue();
    assertThat(entry(config, "database.hostname").path("value").asText()).isEqualTo("db");
    assertThat(JSON.readTree(connector).path("tasks").get(0).path("trace").asText())
        .contains("(tried [hidden])");
  }

  @Test
  void actionsAreRefusedWhenNotEnabledAndNothingReachesConnect() throws Exception {
    HttpResponse<String> answer = post(console(false), "/api/connectors/shop-pg/pause", true);

    assertThat(answer.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(answer.body()).path("error").asText())
        .isEqualTo(ApiRoutes.ACTIONS_DISABLED);
    assertThat(connect.changes).isEmpty();
  }

  @Test
  void enabledActionsReachConnectOnlyFromTheConsolesPages() throws Exception {
    ConsoleServer console = console(true);

    assertThat(post(console, "/api/connectors/shop-pg/pause", false).statusCode())
        .as("without the pages' header (a cross-site form post)")
        .isEqualTo(400);
    assertThat(connect.changes).isEmpty();
    assertThat(post(console, "/api/connectors/shop-pg/pause", true).statusCode()).isEqualTo(200);
    assertThat(post(console, "/api/connectors/shop-pg/restart", true).statusCode()).isEqualTo(200);
    assertThat(connect.changes)
        .containsExactly(
            "PUT /connectors/shop-pg/pause",
            "POST /connectors/shop-pg/restart?includeTasks=true&onlyFailed=false");
  }

  @Test
  void aLoginIsAskedForWhenConfigured() throws Exception {
    ConsoleServer console =
        start(
            settings(
                false, Optional.of(new ConsoleSettings.Login("ops", "console-pw")), "127.0.0.1"));

    assertThat(raw(console, "/api/info").statusCode()).isEqualTo(401);
    assertThat(raw(console, "/").statusCode()).isEqualTo(401);
    HttpResponse<String> withLogin =
        http.send(
            HttpRequest.newBuilder(console.url().resolve("/api/info"))
                .header(
                    "Authorization",
                    "Basic "
                        + Base64.getEncoder()
                            .encodeToString("ops:console-pw".getBytes(StandardCharsets.UTF_8)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(withLogin.statusCode()).isEqualTo(200);
  }

  @Test
  void bindingBeyondLoopbackWithoutLoginAndTlsIsRefused() {
    assertThatThrownBy(() -> settings(false, Optional.empty(), "0.0.0.0").checkSafe())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a loopback address")
        .hasMessageContaining("--console-user")
        .hasMessageContaining("--tls-keystore");
  }

  @Test
  void thePagesAreServedAndNothingOutsideTheirFolder() throws Exception {
    ConsoleServer console = console(false);

    HttpResponse<String> index = raw(console, "/");
    assertThat(index.statusCode()).isEqualTo(200);
    assertThat(index.body()).contains("<title>Changelake console</title>");
    assertThat(index.headers().firstValue("Content-Security-Policy")).isPresent();
    assertThat(raw(console, "/app.js").body()).contains("function pipelinesPage");
    assertThat(raw(console, "/..%2Fserver%2FJson.class").statusCode()).isEqualTo(404);
  }

  @Test
  void anUnknownTableIsANotFoundNamingIt() throws Exception {
    HttpResponse<String> answer = raw(console(false), "/api/tables/shop/nope");

    assertThat(answer.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(answer.body()).path("error").asText())
        .contains("No table shop.nope in the lake");
  }

  private ConsoleServer console(boolean actions) {
    return start(settings(actions, Optional.empty(), "127.0.0.1"));
  }

  private ConsoleServer start(ConsoleSettings settings) {
    ConsoleServer server = ConsoleServer.start(settings);
    servers.add(server);
    return server;
  }

  private ConsoleSettings settings(
      boolean actions, Optional<ConsoleSettings.Login> login, String host) {
    return new ConsoleSettings(
        new InetSocketAddress(host, 0),
        new ConnectClient(ConnectEndpoint.plain(connect.url())),
        Map.of("warehouse", warehouse.toUri().toString()),
        Optional.empty(),
        actions,
        login,
        Optional.empty());
  }

  private JsonNode get(ConsoleServer console, String path) throws Exception {
    HttpResponse<String> answer = raw(console, path);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  private HttpResponse<String> raw(ConsoleServer console, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(console.url().toString() + path.substring(1))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(ConsoleServer console, String path, boolean withHeader)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(console.url().resolve(path))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (withHeader) {
      request.header(ApiRoutes.ACTION_HEADER, "1");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode node(JsonNode pipeline, String id) {
    for (JsonNode n : pipeline.path("nodes")) {
      if (n.path("id").asText().equals(id)) {
        return n;
      }
    }
    throw new AssertionError("no node " + id + " in " + pipeline);
  }

  private static JsonNode entry(JsonNode config, String key) {
    for (JsonNode e : config) {
      if (e.path("key").asText().equals(key)) {
        return e;
      }
    }
    throw new AssertionError("no key " + key + " in " + config);
  }
}
