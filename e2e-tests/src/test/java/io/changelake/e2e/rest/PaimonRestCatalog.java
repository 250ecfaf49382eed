package io.changelake.e2e.rest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * A Paimon REST catalog server on loopback in a child JVM: Paimon's own {@code RESTCatalogServer}
 * (paimon-core's test jar, the reference implementation of the protocol; see
 * e2e-tests/rest-catalog-server) serving warehouse {@link #WAREHOUSE} with its tables under a local
 * directory, accepting only requests that carry {@code Authorization: Bearer <token>}. Clients (the
 * connectors, the test's readers) write data files into that directory themselves; the server holds
 * the catalog and commits snapshots.
 */
public final class PaimonRestCatalog implements AutoCloseable {
  /** The warehouse the server serves: clients name it in {@code warehouse}. */
  public static final String WAREHOUSE = "changelake";

  private final Process process;
  private final String uri;
  private final String token;

  private PaimonRestCatalog(Process process, String uri, String token) {
    this.process = process;
    this.uri = uri;
    this.token = token;
  }

  /** Starts a server keeping its tables under {@code dir}/data, accepting {@code token} only. */
  public static PaimonRestCatalog start(Path dir, String token) {
    String classPath = System.getProperty("changelake.restserver.classpath");
    if (classPath == null || classPath.isBlank()) {
      throw new IllegalStateException("system property changelake.restserver.classpath is not set");
    }
    try {
      Files.createDirectories(dir.resolve("data"));
      Path urlFile = dir.resolve("url");
      Path log = dir.resolve("server.log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process process =
          new ProcessBuilder(
                  List.of(
                      java,
                      "-Xmx256m",
                      "-XX:+UseSerialGC",
                      "-cp",
                      classPath,
                      "io.changelake.e2e.restserver.RestCatalogMain",
                      dir.resolve("data").toString(),
                      token,
                      WAREHOUSE,
                      urlFile.toString()))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> Files.exists(urlFile) || !process.isAlive());
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the REST catalog server exited: " + Files.readString(log, StandardCharsets.UTF_8));
      }
      return new PaimonRestCatalog(
          process, Files.readString(urlFile, StandardCharsets.UTF_8).trim(), token);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the REST catalog server", e);
    }
  }

  /** The server's base URI, for {@code uri}. */
  public String uri() {
    return uri;
  }

  /** Paimon catalog options (no {@code paimon.} prefix) of a client holding {@code clientToken}. */
  public Map<String, String> catalogOptions(String clientToken) {
    return Map.of(
        "metastore", "rest",
        "uri", uri,
        "warehouse", WAREHOUSE,
        "token.provider", "bear",
        "token", clientToken);
  }

  /** Catalog options of a client holding the server's token. */
  public Map<String, String> catalogOptions() {
    return catalogOptions(token);
  }

  /** The same options with the connectors' {@code paimon.} prefix. */
  public Map<String, String> connectorOptions(String clientToken) {
    Map<String, String> options = new HashMap<>();
    catalogOptions(clientToken).forEach((key, value) -> options.put("paimon." + key, value));
    return options;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
