package io.changelake.console.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.console.connector.ConnectorReader;
import io.changelake.console.deadletter.DeadLetter;
import io.changelake.console.deadletter.DeadLetterReader;
import io.changelake.console.pipeline.PipelineReader;
import io.changelake.console.table.TableInspector;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.paimon.catalog.Catalog;

/** The JSON API under {@code /api/}: one method per page, and the connector actions. */
final class ApiRoutes implements HttpHandler {
  /** Rows in the table page's preview unless the page asks for fewer. */
  static final int MAX_ROWS = 200;

  /** Dead letters shown per topic. */
  static final int DEAD_LETTERS_SHOWN = 100;

  /**
   * Header every action request must carry. A browser sends a custom header cross-site only after a
   * CORS preflight, which this server never grants: another site cannot make a visitor's browser
   * pause a connector.
   */
  static final String ACTION_HEADER = "X-Changelake-Action";

  static final String ACTIONS_DISABLED =
      "Actions are disabled: this console is read-only. Start it with --enable-actions to pause,"
          + " resume or restart connectors.";

  private final ConnectClient connect;
  private final ConnectorReader connectors;
  private final PipelineReader pipelines;
  private final TableInspector tables;
  private final Catalog catalog;
  private final Optional<DeadLetterReader> deadLetters;
  private final boolean actionsEnabled;

  ApiRoutes(
      ConnectClient connect,
      Catalog catalog,
      Optional<String> bootstrapServers,
      boolean actionsEnabled) {
    this.connect = connect;
    this.catalog = catalog;
    this.actionsEnabled = actionsEnabled;
    this.connectors = new ConnectorReader(connect, actionsEnabled);
    this.pipelines = new PipelineReader(connectors, catalog, bootstrapServers);
    this.tables = new TableInspector(catalog);
    this.deadLetters = bootstrapServers.map(DeadLetterReader::new);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try {
      route(exchange);
    } catch (ConnectRestException e) {
      Json.error(exchange, e.notFound() ? 404 : 502, e.getMessage());
    } catch (IllegalArgumentException e) {
      Json.error(exchange, 404, e.getMessage());
    } catch (RuntimeException e) {
      Json.error(exchange, 500, e.getClass().getSimpleName() + ": " + e.getMessage());
    } finally {
      exchange.close();
    }
  }

  private void route(HttpExchange exchange) throws IOException {
    List<String> path = segments(exchange.getRequestURI().getRawPath());
    String method = exchange.getRequestMethod();
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    if ("POST".equals(method) && path.size() == 4 && path.get(1).equals("connectors")) {
      action(exchange, path.get(2), path.get(3));
      return;
    }
    if (!"GET".equals(method)) {
      Json.error(exchange, 405, method + " is not allowed on " + exchange.getRequestURI());
      return;
    }
    if (path.size() == 2 && path.get(1).equals("info")) {
      Map<String, Object> info = new LinkedHashMap<>();
      info.put("actionsEnabled", actionsEnabled);
      info.put("connectUrl", connect.url().toString());
      info.put("kafka", deadLetters.isPresent());
      Json.send(exchange, 200, info);
    } else if (path.size() == 2 && path.get(1).equals("pipelines")) {
      Json.send(exchange, 200, pipelines.read());
    } else if (path.size() == 2 && path.get(1).equals("tables")) {
      Json.send(exchange, 200, tableNames());
    } else if (path.size() == 4 && path.get(1).equals("tables")) {
      Long snapshot = query.containsKey("snapshot") ? Long.valueOf(query.get("snapshot")) : null;
      int limit = Math.min(MAX_ROWS, Integer.parseInt(query.getOrDefault("limit", "50")));
      Json.send(exchange, 200, tables.inspect(path.get(2), path.get(3), snapshot, limit));
    } else if (path.size() == 2 && path.get(1).equals("dead-letters")) {
      Json.send(exchange, 200, deadLetters());
    } else if (path.size() == 3 && path.get(1).equals("connectors")) {
      Json.send(exchange, 200, connectors.read(path.get(2)));
    } else {
      Json.error(exchange, 404, "No such API: " + exchange.getRequestURI().getPath());
    }
  }

  private void action(HttpExchange exchange, String name, String action) throws IOException {
    if (!actionsEnabled) {
      Json.error(exchange, 403, ACTIONS_DISABLED);
      return;
    }
    if (exchange.getRequestHeaders().getFirst(ACTION_HEADER) == null) {
      Json.error(
          exchange,
          400,
          "Actions need the " + ACTION_HEADER + " header (sent by the console's pages).");
      return;
    }
    switch (action) {
      case "pause" -> connect.pause(name);
      case "resume" -> connect.resume(name);
      // a failed task is what users restart: restart the instance and every task
      case "restart" -> connect.restart(name, true, false);
      default -> {
        Json.error(exchange, 404, "No action '" + action + "': use pause, resume or restart");
        return;
      }
    }
    Json.send(exchange, 200, Map.of("message", action + " requested for " + name));
  }

  private List<String> tableNames() {
    List<String> names = new ArrayList<>();
    try {
      for (String database : catalog.listDatabases()) {
        for (String table : catalog.listTables(database)) {
          names.add(database + "." + table);
        }
      }
    } catch (Catalog.DatabaseNotExistException e) {
      // dropped while listing: the next poll shows the rest
    }
    names.sort(String::compareTo);
    return names;
  }

  /** The dead-letter topics named by connectors' configs, with their newest records. */
  private Map<String, Object> deadLetters() {
    Map<String, String> topicToConnector = new LinkedHashMap<>();
    Map<String, Map<String, String>> configs = new LinkedHashMap<>();
    for (String name : connectors.names()) {
      try {
        Map<String, String> config = connectors.rawConfig(name);
        configs.put(name, config);
        String topic = config.get("errors.deadletterqueue.topic.name");
        if (topic != null && !topic.isBlank()) {
          topicToConnector.put(topic.strip(), name);
        }
      } catch (ConnectRestException e) {
        // deleted since listed
      }
    }
    List<DeadLetter> letters = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    if (deadLetters.isPresent()) {
      for (String topic : new TreeSet<>(topicToConnector.keySet())) {
        try {
          letters.addAll(
              deadLetters
                  .get()
                  .newest(topic, DEAD_LETTERS_SHOWN, c -> configs.getOrDefault(c, Map.of())));
        } catch (RuntimeException e) {
          problems.add("Dead-letter topic " + topic + ": " + e.getMessage());
        }
      }
    } else if (!topicToConnector.isEmpty()) {
      problems.add("Start the console with --bootstrap-servers to read the dead-letter topics.");
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("topics", topicToConnector);
    answer.put("letters", letters);
    answer.put("problems", problems);
    return answer;
  }

  static List<String> segments(String rawPath) {
    return Arrays.stream(rawPath.split("/"))
        .filter(s -> !s.isEmpty())
        .map(s -> URLDecoder.decode(s, StandardCharsets.UTF_8))
        .toList();
  }

  static Map<String, String> query(String raw) {
    Map<String, String> query = new LinkedHashMap<>();
    if (raw == null) {
      return query;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        query.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return query;
  }

  void close() {
    pipelines.close();
  }
}
