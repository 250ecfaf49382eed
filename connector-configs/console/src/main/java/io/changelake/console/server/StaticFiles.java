package io.changelake.console.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;

/** Serves the pages, scripts and styles packaged under {@code io/changelake/console/web/}. */
final class StaticFiles implements HttpHandler {
  private static final String ROOT = "/io/changelake/console/web/";
  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "txt", "text/plain; charset=utf-8");

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    if (path.equals("/")) {
      path = "/index.html";
    }
    String name = path.substring(1);
    // only plain file names of the one folder: no way up and out of it
    if (!name.matches("[A-Za-z0-9_-]+\\.[a-z]+") || !"GET".equals(exchange.getRequestMethod())) {
      Json.error(exchange, 404, "No such page: " + path);
      return;
    }
    try (InputStream in = StaticFiles.class.getResourceAsStream(ROOT + name)) {
      if (in == null) {
        Json.error(exchange, 404, "No such page: " + path);
        return;
      }
      byte[] bytes = in.readAllBytes();
      String extension = name.substring(name.lastIndexOf('.') + 1);
      exchange
          .getResponseHeaders()
          .set("Content-Type", TYPES.getOrDefault(extension, "application/octet-stream"));
      ConsoleServer.securityHeaders(exchange);
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
