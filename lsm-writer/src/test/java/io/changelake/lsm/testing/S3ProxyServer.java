package io.changelake.lsm.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * An S3 endpoint for tests: s3proxy ({@code org.gaul:s3proxy:4.1.0}, jar-with-dependencies) as a
 * child process on a free loopback port, storing objects in a local directory ({@code
 * filesystem-nio2}); each bucket is a sub-directory, created by {@link #createBucket}.
 *
 * <pre>{@code
 * try (S3ProxyServer s3 = S3ProxyServer.start(tempDir)) {
 *   s3.createBucket("lake");
 *   Catalog catalog = LakeCatalogs.open(s3.connectorProperties("s3://lake/warehouse"));
 * }
 * }</pre>
 *
 * <p>The jar is taken from the system property {@code s3proxy.jar}, else the local Maven repository
 * ({@code ~/.m2/repository/org/gaul/s3proxy/4.1.0/}). Keep it off the test class path: it bundles
 * logback, slf4j, Jackson and Guava. lsm-writer's build copies it to {@code target/s3proxy/} (and
 * so downloads it into the local repository); other modules can do the same with the
 * maven-dependency-plugin, or rely on the local repository. The proxy's output goes to {@code
 * s3proxy.log} in the work directory.
 */
public final class S3ProxyServer implements AutoCloseable {
  /** Fixed credentials the proxy accepts. */
  public static final String ACCESS_KEY = "changelake-test";

  public static final String SECRET_KEY = "changelake-test-secret";

  private static final String JAR_NAME = "s3proxy-4.1.0-jar-with-dependencies.jar";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private Process process;
  private final int port;
  private final Path dataDirectory;
  private final Path workDirectory;
  private final Path configFile;

  private S3ProxyServer(int port, Path dataDirectory, Path workDirectory, Path configFile) {
    this.port = port;
    this.dataDirectory = dataDirectory;
    this.workDirectory = workDirectory;
    this.configFile = configFile;
  }

  /** Starts a proxy keeping its objects under {@code workDirectory}; returns once it answers. */
  public static S3ProxyServer start(Path workDirectory) throws IOException {
    Path data = Files.createDirectories(workDirectory.resolve("s3-data"));
    int port = freePort();
    Properties config = new Properties();
    config.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
    config.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    config.setProperty("s3proxy.identity", ACCESS_KEY);
    config.setProperty("s3proxy.credential", SECRET_KEY);
    config.setProperty("jclouds.provider", "filesystem-nio2");
    config.setProperty("jclouds.filesystem.basedir", data.toString());
    config.setProperty("jclouds.identity", "unused");
    config.setProperty("jclouds.credential", "unused");
    Path configFile = workDirectory.resolve("s3proxy.conf");
    try (OutputStream out = Files.newOutputStream(configFile)) {
      config.store(out, "s3proxy for tests");
    }
    S3ProxyServer server = new S3ProxyServer(port, data, workDirectory, configFile);
    server.launch();
    return server;
  }

  private void launch() throws IOException {
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("-Xmx256m");
    command.add("-jar");
    command.add(jar().toString());
    command.add("--properties");
    command.add(configFile.toString());
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(workDirectory.resolve("s3proxy.log").toFile()))
            .start();
    try {
      awaitReady(workDirectory.resolve("s3proxy.log"));
    } catch (RuntimeException | IOException e) {
      close();
      throw e;
    }
  }

  /**
   * Stops the proxy, as an outage of the object store: connections to its port are refused until
   * {@link #restart}. The objects stay in the storage directory.
   */
  public void stop() {
    close();
  }

  /** Starts the proxy again on the same port and storage directory; returns once it answers. */
  public void restart() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("s3proxy is running");
    }
    launch();
  }

  /** The endpoint URL, e.g. {@code http://127.0.0.1:41234}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Creates a bucket (a directory of the filesystem store). */
  public void createBucket(String bucket) throws IOException {
    Files.createDirectories(dataDirectory.resolve(bucket));
  }

  /** The directory holding the objects of {@code bucket}, to inspect what was written. */
  public Path bucketDirectory(String bucket) {
    return dataDirectory.resolve(bucket);
  }

  /** Paimon catalog options (without the connector prefix) for a warehouse on this proxy. */
  public Map<String, String> catalogOptions(String warehouse) {
    Map<String, String> options = new HashMap<>();
    options.put("warehouse", warehouse);
    options.put("s3.endpoint", endpoint());
    options.put("s3.access-key", ACCESS_KEY);
    options.put("s3.secret-key", SECRET_KEY);
    options.put("s3.path.style.access", "true");
    // s3proxy accepts any region; naming one keeps the AWS SDK from looking for it elsewhere
    options.put("s3.endpoint.region", "us-east-1");
    return options;
  }

  /** The same options as connector properties, under the {@code paimon.} prefix. */
  public Map<String, String> connectorProperties(String warehouse) {
    Map<String, String> props = new HashMap<>();
    catalogOptions(warehouse).forEach((key, value) -> props.put("paimon." + key, value));
    return props;
  }

  @Override
  public void close() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private void awaitReady(Path log) throws IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "s3proxy exited with "
                + process.exitValue()
                + ": "
                + Files.readString(log, StandardCharsets.UTF_8));
      }
      try {
        HttpURLConnection connection =
            (HttpURLConnection) URI.create(endpoint() + "/").toURL().openConnection();
        connection.setConnectTimeout(500);
        connection.setReadTimeout(2000);
        connection.getResponseCode(); // any answer (403 without credentials) means it is up
        connection.disconnect();
        return;
      } catch (IOException notYet) {
        sleep();
      }
    }
    throw new IllegalStateException(
        "s3proxy did not answer within "
            + START_TIMEOUT
            + ": "
            + Files.readString(log, StandardCharsets.UTF_8));
  }

  private static void sleep() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for s3proxy", e);
    }
  }

  private static Path jar() {
    String configured = System.getProperty("s3proxy.jar");
    if (configured != null) {
      return Paths.get(configured);
    }
    Path local =
        Paths.get(
            System.getProperty("user.home"),
            ".m2",
            "repository",
            "org",
            "gaul",
            "s3proxy",
            "4.1.0",
            JAR_NAME);
    if (Files.exists(local)) {
      return local;
    }
    throw new IllegalStateException(
        "Cannot find "
            + JAR_NAME
            + ": set -Ds3proxy.jar=<path> or resolve org.gaul:s3proxy:4.1.0:jar:jar-with-dependencies"
            + " into the local Maven repository");
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
