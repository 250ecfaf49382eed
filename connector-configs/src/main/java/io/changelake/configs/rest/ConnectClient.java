package io.changelake.configs.rest;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** A small client of the Kafka Connect REST API: one method per endpoint the CLI uses. */
public final class ConnectClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(90);
  // the message of Connect's RebalanceNeededException, which it answers with 500
  private static final String REBALANCE_EXPECTED = "a rebalance is expected";

  private final ConnectEndpoint endpoint;
  private final HttpClient http;
  private final Optional<String> authorization;
  private final RebalanceRetry retry;
  private final Consumer<String> notices;

  public ConnectClient(ConnectEndpoint endpoint) {
    this(endpoint, RebalanceRetry.DEFAULT, notice -> {});
  }

  /**
   * @param retry how calls answered with 409 (rebalance in progress) are retried
   * @param notices told of each retry, in a sentence a user can read
   */
  public ConnectClient(ConnectEndpoint endpoint, RebalanceRetry retry, Consumer<String> notices) {
    this.endpoint = endpoint;
    this.retry = retry;
    this.notices = notices;
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
    if ("https".equalsIgnoreCase(endpoint.url().getScheme())) {
      builder.sslContext(TlsContexts.forEndpoint(endpoint));
    }
    this.http = builder.build();
    this.authorization =
        endpoint
            .username()
            .map(
                user ->
                    "Basic "
                        + Base64.getEncoder()
                            .encodeToString(
                                (user + ":" + endpoint.password().orElse(""))
                                    .getBytes(StandardCharsets.UTF_8)));
  }

  public URI url() {
    return endpoint.url();
  }

  /** Names of all connectors. */
  public List<String> connectors() {
    return JSON.convertValue(send("GET", "/connectors", null), new TypeReference<>() {});
  }

  /** The stored config of a connector (config-provider references unresolved), if it exists. */
  public Optional<Map<String, String>> config(String name) {
    try {
      return Optional.of(
          JSON.convertValue(
              send("GET", "/connectors/" + encode(name) + "/config", null),
              new TypeReference<LinkedHashMap<String, String>>() {}));
    } catch (ConnectRestException e) {
      if (e.notFound()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Creates or updates a connector; true when it was created. */
  public boolean putConfig(String name, Map<String, String> config) {
    return exchange("PUT", "/connectors/" + encode(name) + "/config", config).status() == 201;
  }

  public ValidationReport validate(String connectorClass, Map<String, String> config) {
    JsonNode answer =
        send("PUT", "/connector-plugins/" + encode(connectorClass) + "/config/validate", config);
    List<ValidationReport.KeyReport> keys = new ArrayList<>();
    for (JsonNode entry : answer.path("configs")) {
      JsonNode definition = entry.path("definition");
      List<String> errors = new ArrayList<>();
      entry.path("value").path("errors").forEach(e -> errors.add(e.asText()));
      keys.add(
          new ValidationReport.KeyReport(
              entry.path("value").path("name").asText(),
              definition.path("type").asText(""),
              definition.path("group").asText(""),
              errors));
    }
    return new ValidationReport(
        answer.path("name").asText(connectorClass), answer.path("error_count").asInt(), keys);
  }

  public ConnectorState status(String name) {
    JsonNode answer = send("GET", "/connectors/" + encode(name) + "/status", null);
    JsonNode connector = answer.path("connector");
    List<ConnectorState.Task> tasks = new ArrayList<>();
    for (JsonNode task : answer.path("tasks")) {
      tasks.add(
          new ConnectorState.Task(
              task.path("id").asInt(),
              task.path("state").asText(),
              task.path("worker_id").asText(),
              text(task, "trace")));
    }
    tasks.sort((a, b) -> Integer.compare(a.id(), b.id()));
    return new ConnectorState(
        answer.path("name").asText(name),
        answer.path("type").asText("unknown"),
        new ConnectorState.Instance(
            connector.path("state").asText(),
            connector.path("worker_id").asText(),
            text(connector, "trace")),
        tasks);
  }

  /**
   * KIP-558: the topics the connector has produced to (source) or consumed from (sink) since it was
   * created or its topics were last reset.
   */
  public List<String> topics(String name) {
    JsonNode answer = send("GET", "/connectors/" + encode(name) + "/topics", null);
    List<String> topics = new ArrayList<>();
    answer.path(name).path("topics").forEach(t -> topics.add(t.asText()));
    return topics;
  }

  public void pause(String name) {
    send("PUT", "/connectors/" + encode(name) + "/pause", null);
  }

  public void resume(String name) {
    send("PUT", "/connectors/" + encode(name) + "/resume", null);
  }

  /** KIP-875: stops the connector and its tasks, keeping its config; offsets can then change. */
  public void stop(String name) {
    send("PUT", "/connectors/" + encode(name) + "/stop", null);
  }

  public void restart(String name, boolean includeTasks, boolean onlyFailed) {
    send(
        "POST",
        "/connectors/"
            + encode(name)
            + "/restart?includeTasks="
            + includeTasks
            + "&onlyFailed="
            + onlyFailed,
        null);
  }

  public void delete(String name) {
    send("DELETE", "/connectors/" + encode(name), null);
  }

  /** KIP-875: the committed offsets, as Connect returns them ({@code {"offsets":[...]}}). */
  public JsonNode offsets(String name) {
    return send("GET", "/connectors/" + encode(name) + "/offsets", null);
  }

  /** KIP-875: removes all committed offsets of a stopped connector; returns Connect's message. */
  public String resetOffsets(String name) {
    return send("DELETE", "/connectors/" + encode(name) + "/offsets", null)
        .path("message")
        .asText();
  }

  /** KIP-875: writes the given offsets ({@code {"offsets":[...]}}) for a stopped connector. */
  public String alterOffsets(String name, JsonNode offsets) {
    return send("PATCH", "/connectors/" + encode(name) + "/offsets", offsets)
        .path("message")
        .asText();
  }

  private record Answer(int status, JsonNode body) {}

  private JsonNode send(String method, String path, Object body) {
    return exchange(method, path, body).body();
  }

  private Answer exchange(String method, String path, Object body) {
    for (int attempt = 1; ; attempt++) {
      try {
        return exchangeOnce(method, path, body);
      } catch (ConnectRestException e) {
        if (!e.rebalancing() || attempt >= retry.attempts()) {
          throw e;
        }
        Duration pause = retry.backoffAfter(attempt);
        notices.accept(
            "Kafka Connect is rebalancing ("
                + e.status()
                + " on "
                + method
                + " "
                + path
                + "): retrying in "
                + pause.toMillis()
                + " ms (attempt "
                + (attempt + 1)
                + " of "
                + retry.attempts()
                + ")");
        try {
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private Answer exchangeOnce(String method, String path, Object body) {
    URI uri = URI.create(stripSlash(endpoint.url().toString()) + path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).header("Accept", "application/json");
    authorization.ifPresent(value -> request.header("Authorization", value));
    try {
      if (body == null) {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      } else {
        request.header("Content-Type", "application/json");
        request.method(
            method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
      }
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode parsed =
          response.body() == null || response.body().isBlank()
              ? JSON.createObjectNode()
              : parse(response.body());
      if (response.statusCode() >= 400) {
        String message = parsed.path("message").asText("");
        boolean rebalancing = rebalancing(response.statusCode(), message);
        throw new ConnectRestException(
            response.statusCode(),
            method
                + " "
                + uri
                + " answered "
                + response.statusCode()
                + (message.isEmpty() ? "" : ": " + message)
                + hint(response.statusCode(), rebalancing),
            rebalancing);
      }
      return new Answer(response.statusCode(), parsed);
    } catch (IOException e) {
      throw new ConnectRestException(
          "Cannot reach Kafka Connect at "
              + endpoint.url()
              + " ("
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage())
              + "). Check --connect-url and that the worker is running.",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectRestException("Interrupted while calling " + uri, e);
    }
  }

  private static JsonNode parse(String body) throws IOException {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      // Proxies and auth filters answer with HTML or plain text: keep it as the message.
      return JSON.createObjectNode().put("message", body.strip());
    }
  }

  /**
   * Connect refuses a call it has not applied while it rebalances: with 409, or, for calls it does
   * not forward to the leader (reads such as {@code GET /connectors/{name}/config} since Kafka
   * 3.x), with 500 and the message of its {@code RebalanceNeededException}.
   */
  private static boolean rebalancing(int status, String message) {
    return status == 409 || (status == 500 && message.contains(REBALANCE_EXPECTED));
  }

  private String hint(int status, boolean rebalancing) {
    if (status != 409 && rebalancing) {
      return " (still refused after "
          + retry.attempts()
          + " attempts: a rebalance is expected; check the workers' logs, then retry)";
    }
    return switch (status) {
      case 401 -> " (give --user and --password, or check them)";
      case 403 -> " (the user lacks permission for this call)";
      case 409 ->
          " (still 409 after "
              + retry.attempts()
              + " attempts: a rebalance is in progress or the connector is not stopped; check"
              + " the workers' logs, then retry)";
      default -> "";
    };
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
