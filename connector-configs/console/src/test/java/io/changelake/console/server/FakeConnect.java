package io.changelake.console.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** A Connect REST API that answers from fixed connectors and records the calls that change one. */
final class FakeConnect implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One connector: config, type, task states (with traces) and topics. */
  record Connector(
      Map<String, String> config,
      String type,
      List<Map<String, Object>> tasks,
      List<String> topics) {}

  final Map<String, Connector> connectors = new ConcurrentHashMap<>();
  final List<String> changes = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  FakeConnect() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/connectors", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  static Map<String, Object> task(int id, String state, String trace) {
    return trace == null
        ? Map.of("id", id, "state", state, "worker_id", "w1:8083")
        : Map.of("id", id, "state", state, "worker_id", "w1:8083", "trace", trace);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String[] path = exchange.getRequestURI().getPath().split("/");
    String method = exchange.getRequestMethod();
    try (exchange) {
      if (path.length == 2) {
        send(exchange, 200, connectors.keySet().stream().sorted().toList());
        return;
      }
      Connector c = connectors.get(path[2]);
      if (c == null) {
        send(exchange, 404, Map.of("message", "Connector " + path[2] + " not found"));
        return;
      }
      String what = path.length > 3 ? path[3] : "";
      if (!method.equals("GET")) {
        changes.add(method + " " + exchange.getRequestURI());
        send(exchange, 202, Map.of());
        return;
      }
      switch (what) {
        case "config" -> send(exchange, 200, c.config());
        case "status" ->
            send(
                exchange,
                200,
                Map.of(
                    "name",
                    path[2],
                    "type",
                    c.type(),
                    "connector",
                    Map.of("state", "RUNNING", "worker_id", "w1:8083"),
                    "tasks",
                    c.tasks()));
        case "topics" -> send(exchange, 200, Map.of(path[2], Map.of("topics", c.topics())));
        default -> send(exchange, 404, Map.of("message", "no " + what));
      }
    }
  }

  private static void send(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
