package io.changelake.configs.postgres;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster started from locally installed server binaries: logical decoding
 * on, a free loopback port, a private socket directory, deleted on {@link #close()}. As root the
 * server runs as the {@code postgres} user (PostgreSQL refuses to run as root). The quickstart's
 * live database and the test kit's PostgreSQL fixture are both one of these.
 */
public final class PostgresCluster implements AutoCloseable {
  /** Superuser of the cluster; authentication is {@code trust} on loopback only. */
  public static final String USER = "postgres";

  /** The password connector configs name; with {@code trust} any password is accepted. */
  public static final String PASSWORD = "postgres";

  private static final Path INSTALL_ROOT = Path.of("/usr/lib/postgresql");

  // the clusters this JVM started and has not closed: a JVM that ends without closing one (a test
  // class whose teardown never ran, a CLI stopped by a signal) closes it on its way out, instead of
  // leaving a server running with nobody to stop it. Only a SIGKILL leaves one behind.
  private static final Set<PostgresCluster> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> List.copyOf(OPEN).forEach(PostgresCluster::closeQuietly),
                "changelake-postgres-shutdown"));
  }

  /** A PostgreSQL command or statement failed; the message names it and what it printed. */
  public static final class PostgresException extends IllegalStateException {
    PostgresException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final Path bin;
  private final Path root;
  private final int port;
  private final boolean asRoot = "root".equals(System.getProperty("user.name"));

  private PostgresCluster(Path bin, Path root, int port) {
    this.bin = bin;
    this.root = root;
    this.port = port;
  }

  /** The newest installed server's bin directory, e.g. /usr/lib/postgresql/15/bin. */
  public static Optional<Path> installedBin() {
    if (!Files.isDirectory(INSTALL_ROOT)) {
      return Optional.empty();
    }
    List<Path> bins = new ArrayList<>();
    try (DirectoryStream<Path> versions = Files.newDirectoryStream(INSTALL_ROOT)) {
      for (Path version : versions) {
        if (Files.isExecutable(version.resolve("bin").resolve("initdb"))) {
          bins.add(version.resolve("bin"));
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return bins.stream()
        .max(Comparator.comparingInt(b -> versionOf(b.getParent().getFileName().toString())));
  }

  private static int versionOf(String name) {
    try {
      return Integer.parseInt(name.replaceAll("[^0-9].*", ""));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * Creates a cluster in a fresh directory with the server binaries in {@code bin} and starts it.
   *
   * @param settings {@code postgresql.conf} settings besides the fixed ones (the port and socket
   *     directory, {@code listen_addresses=127.0.0.1}, {@code wal_level=logical}, {@code
   *     fsync=off}), e.g. {@code max_replication_slots}
   */
  public static PostgresCluster start(Path bin, Map<String, String> settings) {
    Path root;
    try {
      // Under /tmp, not the build's tmpdir or the caller's home: the postgres user must be able
      // to reach the folder, and a unix socket path may not exceed 107 bytes.
      root = Files.createTempDirectory(Path.of("/tmp"), "changelake-pg-");
    } catch (IOException e) {
      throw new PostgresException("Cannot create a directory for PostgreSQL: " + e.getMessage(), e);
    }
    PostgresCluster cluster = new PostgresCluster(bin, root, freePort());
    OPEN.add(cluster);
    try {
      cluster.init(settings);
      cluster.restart();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private void init(Map<String, String> settings) {
    Path sockets = root.resolve("sock");
    try {
      Files.createDirectories(dataDir());
      Files.createDirectories(sockets);
    } catch (IOException e) {
      throw new PostgresException("Cannot prepare " + root + ": " + e.getMessage(), e);
    }
    if (asRoot) {
      run(List.of("chown", "-R", USER + ":" + USER, root.toString()));
    }
    runAsPostgres(
        bin.resolve("initdb").toString(),
        "-D",
        dataDir().toString(),
        "-U",
        USER,
        "--auth=trust",
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync");
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("listen_addresses", "127.0.0.1");
    conf.put("port", String.valueOf(port));
    conf.put("unix_socket_directories", sockets.toString());
    conf.put("wal_level", "logical");
    // a throwaway cluster: durability only costs time here
    conf.put("fsync", "off");
    conf.putAll(settings);
    StringBuilder lines = new StringBuilder("\n");
    conf.forEach((key, value) -> lines.append(key).append(" = '").append(value).append("'\n"));
    try {
      Files.writeString(
          dataDir().resolve("postgresql.conf"),
          lines,
          StandardCharsets.UTF_8,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new PostgresException(
          "Cannot write the settings of " + this + ": " + e.getMessage(), e);
    }
  }

  /** Starts the (stopped) server on its port and data; returns once it accepts connections. */
  public void restart() {
    pgCtl("-l", serverLog().toString(), "-w", "-t", "60", "start");
  }

  /**
   * Stops the server as a crash would ({@code -m immediate}: sessions are cut, nothing is flushed
   * politely), keeping its data: clients see connections refused until {@link #restart}.
   */
  public void stop() {
    pgCtl("-m", "immediate", "-w", "stop");
  }

  private void pgCtl(String... args) {
    List<String> command =
        new ArrayList<>(List.of(bin.resolve("pg_ctl").toString(), "-D", dataDir().toString()));
    command.addAll(List.of(args));
    runAsPostgres(command.toArray(String[]::new));
  }

  public int port() {
    return port;
  }

  /** The server's log (what {@code pg_ctl -l} writes). */
  public Path serverLog() {
    return root.resolve("server.log");
  }

  /** JDBC URL of a database of this cluster. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  public Connection connect(String database) {
    try {
      return DriverManager.getConnection(jdbcUrl(database), USER, PASSWORD);
    } catch (SQLException e) {
      throw new PostgresException(
          "Cannot connect to " + jdbcUrl(database) + ": " + e.getMessage(), e);
    }
  }

  /** Runs statements in {@code database} in order, each in its own auto-commit transaction. */
  public void execute(String database, String... statements) {
    try (Connection c = connect(database);
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        try {
          s.execute(sql);
        } catch (SQLException e) {
          throw new PostgresException(
              "SQL failed in " + database + " on " + this + ": " + sql + ": " + e.getMessage(), e);
        }
      }
    } catch (SQLException e) {
      throw new PostgresException("SQL failed in " + database + " on " + this, e);
    }
  }

  /** Stops the server if it runs and deletes the cluster's directory; once. */
  @Override
  public synchronized void close() {
    // open until this first close: the shutdown hook and an owner closing at once close it once
    if (!OPEN.remove(this)) {
      return;
    }
    try {
      if (Files.exists(dataDir().resolve("postmaster.pid"))) {
        stop();
      }
    } finally {
      deleteRecursively(root);
    }
  }

  private void closeQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      System.err.println("Could not stop " + this + " as the JVM ended: " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    // the version is the name of the binaries' folder, e.g. /usr/lib/postgresql/15/bin
    return "PostgreSQL "
        + bin.toAbsolutePath().getParent().getFileName()
        + " on 127.0.0.1:"
        + port
        + " ("
        + dataDir()
        + ")";
  }

  private Path dataDir() {
    return root.resolve("data");
  }

  private void runAsPostgres(String... command) {
    List<String> full = new ArrayList<>();
    if (asRoot) {
      full.addAll(List.of("runuser", "-u", USER, "--"));
    }
    full.addAll(List.of(command));
    run(full);
  }

  private void run(List<String> command) {
    String line = String.join(" ", command);
    try {
      Path log = Files.createTempFile("changelake-pg-cmd", ".log");
      try {
        Process p =
            new ProcessBuilder(command)
                // as postgres, a working directory it may enter
                .directory(asRoot ? Path.of("/tmp").toFile() : null)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new PostgresException("Timed out: " + line, null);
        }
        if (p.exitValue() != 0) {
          String serverLog =
              Files.isReadable(serverLog())
                  ? "\nserver.log:\n" + Files.readString(serverLog())
                  : "";
          throw new PostgresException(
              "PostgreSQL command failed (exit "
                  + p.exitValue()
                  + "): "
                  + line
                  + "\n"
                  + Files.readString(log)
                  + serverLog,
              null);
        }
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new PostgresException("Cannot run " + line + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostgresException("Interrupted while running " + line, e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new PostgresException("Cannot find a free local port: " + e.getMessage(), e);
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new PostgresException("Cannot delete " + dir + ": " + e.getMessage(), e);
    }
  }
}
