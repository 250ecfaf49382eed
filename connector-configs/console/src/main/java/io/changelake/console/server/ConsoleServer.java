package io.changelake.console.server;

import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.changelake.console.ConsoleSettings;
import io.changelake.lsm.catalog.LakeCatalogs;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.apache.paimon.catalog.Catalog;

/**
 * The console's HTTP server (the JDK's): static pages under {@code /}, JSON under {@code /api/}.
 * Loopback only unless given a login and TLS ({@link ConsoleSettings#checkSafe}).
 */
public final class ConsoleServer implements AutoCloseable {
  private static final int THREADS = 4;

  private final HttpServer server;
  private final ExecutorService executor;
  private final Catalog catalog;
  private final ApiRoutes api;
  private final URI url;
  private boolean closed;

  private ConsoleServer(
      HttpServer server, ExecutorService executor, Catalog catalog, ApiRoutes api, URI url) {
    this.server = server;
    this.executor = executor;
    this.catalog = catalog;
    this.api = api;
    this.url = url;
  }

  /** Starts serving; the console is up when this returns. */
  public static ConsoleServer start(ConsoleSettings settings) {
    settings.checkSafe();
    Map<String, String> catalogProps = new HashMap<>();
    settings.catalogOptions().forEach((k, v) -> catalogProps.put(LakeCatalogs.PREFIX + k, v));
    // a caching catalog would show a schema change minutes late
    catalogProps.put(LakeCatalogs.PREFIX + "cache-enabled", "false");
    Catalog catalog = LakeCatalogs.open(catalogProps);
    try {
      HttpServer server =
          settings.tls().isPresent()
              ? https(settings.bind(), settings.tls().get())
              : HttpServer.create(settings.bind(), 0);
      ApiRoutes api =
          new ApiRoutes(
              settings.connect(), catalog, settings.bootstrapServers(), settings.actionsEnabled());
      HttpContext apiContext = server.createContext("/api/", api);
      HttpContext pages = server.createContext("/", new StaticFiles());
      settings
          .login()
          .ifPresent(
              login -> {
                BasicAuthenticator auth = authenticator(login);
                apiContext.setAuthenticator(auth);
                pages.setAuthenticator(auth);
              });
      ExecutorService executor = Executors.newFixedThreadPool(THREADS, ConsoleServer::thread);
      server.setExecutor(executor);
      server.start();
      String scheme = settings.tls().isPresent() ? "https" : "http";
      String host = settings.bind().getHostString();
      URI url =
          URI.create(
              scheme
                  + "://"
                  + (host.contains(":") ? "[" + host + "]" : host)
                  + ":"
                  + server.getAddress().getPort()
                  + "/");
      return new ConsoleServer(server, executor, catalog, api, url);
    } catch (IOException e) {
      closeQuietly(catalog);
      throw new UncheckedIOException(
          "Cannot serve the console on "
              + settings.bind()
              + ": "
              + e.getMessage()
              + " (is the port taken? give another with --port)",
          e);
    } catch (RuntimeException e) {
      closeQuietly(catalog);
      throw e;
    }
  }

  /** Where the console is, e.g. {@code http://127.0.0.1:8090/}. */
  public URI url() {
    return url;
  }

  static void securityHeaders(HttpExchange exchange) {
    // the pages load only their own scripts and styles and may not be framed by another site
    exchange
        .getResponseHeaders()
        .set(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
  }

  private static HttpsServer https(java.net.InetSocketAddress bind, ConsoleSettings.ServerTls tls)
      throws IOException {
    try {
      KeyStore store =
          KeyStore.getInstance(tls.keyStore().toString().endsWith(".jks") ? "JKS" : "PKCS12");
      try (InputStream in = Files.newInputStream(tls.keyStore())) {
        store.load(in, tls.password().toCharArray());
      }
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, tls.password().toCharArray());
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      HttpsServer server = HttpsServer.create(bind, 0);
      server.setHttpsConfigurator(new HttpsConfigurator(context));
      return server;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "Cannot use key store "
              + tls.keyStore()
              + " for https: "
              + e.getMessage()
              + " (a PKCS12 or .jks file with the console's key and certificate, and its password)",
          e);
    }
  }

  private static BasicAuthenticator authenticator(ConsoleSettings.Login login) {
    byte[] user = login.user().getBytes(StandardCharsets.UTF_8);
    byte[] password = login.password().getBytes(StandardCharsets.UTF_8);
    return new BasicAuthenticator("changelake console", StandardCharsets.UTF_8) {
      @Override
      public boolean checkCredentials(String givenUser, String givenPassword) {
        // compare in constant time: no timing hints about how much of a guess was right
        boolean userOk = MessageDigest.isEqual(user, givenUser.getBytes(StandardCharsets.UTF_8));
        boolean passwordOk =
            MessageDigest.isEqual(password, givenPassword.getBytes(StandardCharsets.UTF_8));
        return userOk & passwordOk;
      }
    };
  }

  private static Thread thread(Runnable r) {
    Thread t = new Thread(r, "changelake-console");
    t.setDaemon(true);
    return t;
  }

  private static void closeQuietly(Catalog catalog) {
    try {
      catalog.close();
    } catch (Exception e) {
      // already failing to start: the start error is the one to report
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.stop(0);
    executor.shutdownNow();
    api.close();
    closeQuietly(catalog);
  }

  @Override
  public String toString() {
    return "console at " + url;
  }
}
