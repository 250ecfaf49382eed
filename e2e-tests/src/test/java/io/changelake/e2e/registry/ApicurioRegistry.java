package io.changelake.e2e.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An Apicurio Registry 2.x (Quarkus runner jar, in-memory storage) in a child JVM on a free
 * loopback port, plus the converter settings that make Debezium and the sink speak Avro through it
 * in Confluent's wire format. Start it early ({@link #launch}), do other set-up while it boots
 * (about 15 s), then {@link #awaitReady}.
 */
public final class ApicurioRegistry implements AutoCloseable {
  /** The system property surefire sets to the folder the registry's tar.gz was unpacked into. */
  public static final String PATH_PROPERTY = "changelake.apicurio.path";

  public static final String AVRO_CONVERTER = "io.apicurio.registry.utils.converter.AvroConverter";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final int port;
  private final Path log;

  private ApicurioRegistry(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts the registry JVM without waiting for it; its log and temp files go into {@code dir}. */
  public static ApicurioRegistry launch(Path dir) {
    Path home = home();
    try (Stream<Path> files = Files.list(home)) {
      Path runner =
          files
              .filter(f -> f.getFileName().toString().endsWith("-runner.jar"))
              .findFirst()
              .orElseThrow(
                  () -> new IllegalStateException("no *-runner.jar in " + home + " (unpacked?)"));
      Files.createDirectories(dir);
      int port = freePort();
      Path log = dir.resolve("apicurio-registry.log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> cmd =
          List.of(
              java,
              "-Xmx384m",
              "-XX:+UseSerialGC",
              "-XX:TieredStopAtLevel=1",
              "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")),
              "-Dquarkus.http.host=127.0.0.1",
              "-Dquarkus.http.port=" + port,
              "-jar",
              runner.toString());
      Process process =
          new ProcessBuilder(cmd)
              .directory(home.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      return new ApicurioRegistry(process, port, log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until {@code /health/ready} answers UP; fails with the log's tail if the JVM exits. */
  public void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Apicurio Registry exited with "
                + process.exitValue()
                + "; log "
                + log
                + ":\n"
                + tail());
      }
      if (status(get("/health/ready")) == 200) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "Apicurio Registry not ready in "
                + timeout.toSeconds()
                + " s; log "
                + log
                + "\n"
                + tail());
      }
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** The registry's own (v2) API, which Apicurio's serdes and converters talk to. */
  public String registryUrl() {
    return "http://127.0.0.1:" + port + "/apis/registry/v2";
  }

  /**
   * The schema with {@code id} as a Confluent client would fetch it for the id in a record ({@code
   * GET /apis/ccompat/v7/schemas/ids/{id}}): its {@code schema} text, or null if the id is unknown.
   */
  public JsonNode confluentSchemaById(int id) {
    HttpResponse<String> r = get("/apis/ccompat/v7/schemas/ids/" + id);
    if (r == null || r.statusCode() == 404) {
      return null;
    }
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "GET schema id " + id + " answered " + r.statusCode() + ": " + r.body());
    }
    try {
      return JSON.readTree(JSON.readTree(r.body()).path("schema").asText());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Key and value converter settings (for a connector config, or a worker's) that write and read
   * Avro through this registry in Confluent's wire format: magic byte 0, then the 4-byte id
   * Apicurio calls the content id (what its Confluent-compatible API serves under {@code
   * /schemas/ids}), no id in headers; schemas are registered on first use under Confluent's topic
   * naming ({@code <topic>-key}, {@code <topic>-value}).
   */
  public Map<String, String> avroConverters() {
    Map<String, String> c = new HashMap<>();
    for (String side : List.of("key.converter", "value.converter")) {
      c.put(side, AVRO_CONVERTER);
      c.put(side + ".apicurio.registry.url", registryUrl());
      c.put(side + ".apicurio.registry.auto-register", "true");
      c.put(side + ".apicurio.registry.as-confluent", "true");
      // what as-confluent installs anyway; naming it too silences Apicurio's warning about a
      // "duplicate id-handler configuration" (the 8-byte default vs. as-confluent) on every task
      c.put(
          side + ".apicurio.registry.id-handler",
          "io.apicurio.registry.serde.Legacy4ByteIdHandler");
      c.put(side + ".apicurio.registry.use-id", "contentId");
      c.put(side + ".apicurio.registry.headers.enabled", "false");
    }
    return c;
  }

  public Path log() {
    return log;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private static Path home() {
    String path = System.getProperty(PATH_PROPERTY);
    if (path == null || !Files.isDirectory(Path.of(path))) {
      throw new IllegalStateException(
          "system property "
              + PATH_PROPERTY
              + " must name the unpacked apicurio-registry-app tar.gz (got "
              + path
              + "); run the tests through Maven: mvn -pl e2e-tests verify");
    }
    return Path.of(path);
  }

  /** The response, or null while nothing listens yet. */
  private HttpResponse<String> get(String path) {
    try {
      return HTTP.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(10))
              .GET()
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int status(HttpResponse<String> r) {
    return r == null ? -1 : r.statusCode();
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
