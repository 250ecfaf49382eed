package io.changelake.configs.rest;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A stand-in for the Connect REST API that answers every request from a script: {@code answer} gets
 * the request's number (from 1) and says what to send back. Records each request line.
 */
public final class FakeConnect implements AutoCloseable {
  /** One scripted answer. */
  public record Answer(int status, String body) {}

  private final HttpServer server;
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());

  public FakeConnect(IntFunction<Answer> answer) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
          Answer a = answer.apply(requests.size());
          byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(a.status(), body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public List<String> requests() {
    return List.copyOf(requests);
  }

  /** Connect's answer while a rebalance is in progress. */
  public static Answer rebalancing() {
    return new Answer(
        409,
        "{\"error_code\":409,\"message\":\"Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)\"}");
  }

  /** A RUNNING source connector {@code name} with one RUNNING task. */
  public static Answer running(String name) {
    return new Answer(
        200,
        """
        {"name":"%s","connector":{"state":"RUNNING","worker_id":"w:8083"},
         "tasks":[{"id":0,"state":"RUNNING","worker_id":"w:8083"}],"type":"source"}"""
            .formatted(name));
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
