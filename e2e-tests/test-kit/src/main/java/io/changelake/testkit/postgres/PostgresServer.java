package io.changelake.testkit.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL 15 cluster built from the Debian server binaries: logical decoding on, a
 * free loopback port, a private socket directory, deleted on {@link #close()}. Use one per test
 * class; separate databases keep tests apart.
 */
public final class PostgresServer implements AutoCloseable {
  /** Where Debian's {@code postgresql-15} package puts the server binaries. */
  public static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  /** Superuser of the throwaway cluster; authentication is {@code trust} on loopback only. */
  public static final String USER = "postgres";

  public static final String PASSWORD = "postgres";

  private final Path root;
  private final Path dataDir;
  private final Path socketDir;
  private final int port;
  private final boolean asRoot;

  private PostgresServer(Path root, int port, boolean asRoot) {
    this.root = root;
    this.dataDir = root.resolve("data");
    this.socketDir = root.resolve("sock");
    this.port = port;
    this.asRoot = asRoot;
  }

  /** Creates and starts a new cluster. */
  public static PostgresServer start() {
    if (!Files.isExecutable(BIN.resolve("initdb")) || !Files.isExecutable(BIN.resolve("pg_ctl"))) {
      throw new IllegalStateException(
          "PostgreSQL 15 server binaries not found in "
              + BIN
              + ": run .ci/run (it installs them) or `apt-get install -y postgresql`");
    }
    boolean asRoot = "root".equals(System.getProperty("user.name"));
    try {
      // Under /tmp, not the build's tmpdir: the postgres user must be able to reach the folder,
      // and a unix socket path may not exceed 107 bytes.
      Path root = Files.createTempDirectory(Path.of("/tmp"), "changelake-pg-");
      PostgresServer server = new PostgresServer(root, freePort(), asRoot);
      try {
        server.initAndStart();
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void initAndStart() throws IOException {
    Files.createDirectories(dataDir);
    Files.createDirectories(socketDir);
    if (asRoot) {
      run(List.of("chown", "-R", USER + ":" + USER, root.toString()));
    }
    runAsPostgres(
        BIN.resolve("initdb").toString(),
        "-D",
        dataDir.toString(),
        "-U",
        USER,
        "--auth=trust",
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync");
    String conf =
        String.join(
            "\n",
            "listen_addresses = '127.0.0.1'",
            "port = " + port,
            "unix_socket_directories = '" + socketDir + "'",
            "wal_level = logical",
            "max_replication_slots = 40",
            "max_wal_senders = 40",
            "max_connections = 200",
            "shared_buffers = 64MB",
            // a throwaway cluster: durability only costs time here
            "fsync = off",
            "synchronous_commit = off",
            "full_page_writes = off",
            "");
    Files.writeString(
        dataDir.resolve("postgresql.conf"),
        conf,
        StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND);
    startServer();
  }

  private void startServer() {
    runAsPostgres(
        BIN.resolve("pg_ctl").toString(),
        "-D",
        dataDir.toString(),
        "-l",
        root.resolve("server.log").toString(),
        "-w",
        "-t",
        "60",
        "start");
  }

  /**
   * Stops the server as a crash would ({@code -m immediate}: sessions are cut, nothing is flushed
   * politely), keeping its data: clients see connections refused until {@link #restart}.
   */
  public void stop() {
    stopImmediately();
  }

  private void stopImmediately() {
    runAsPostgres(
        BIN.resolve("pg_ctl").toString(),
        "-D",
        dataDir.toString(),
        "-m",
        "immediate",
        "-w",
        "stop");
  }

  /** Starts the stopped server again on the same port and data; returns once it accepts. */
  public void restart() {
    startServer();
  }

  public String host() {
    return "127.0.0.1";
  }

  public int port() {
    return port;
  }

  /** JDBC URL of a database of this cluster. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host() + ":" + port + "/" + database;
  }

  public Connection connect(String database) {
    try {
      return DriverManager.getConnection(jdbcUrl(database), USER, PASSWORD);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot connect to " + jdbcUrl(database), e);
    }
  }

  /** Creates a database (name must be a plain identifier). */
  public void createDatabase(String name) {
    execute("postgres", "CREATE DATABASE " + name);
  }

  /** Runs statements in order, each in its own auto-commit transaction. */
  public void execute(String database, String... statements) {
    try (Connection c = connect(database);
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        try {
          s.execute(sql);
        } catch (SQLException e) {
          throw new IllegalStateException("SQL failed in " + database + ": " + sql, e);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs one data-changing statement and returns how many rows it changed. */
  public int update(String database, String sql) {
    try (Connection c = connect(database);
        Statement s = c.createStatement()) {
      return s.executeUpdate(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed in " + database + ": " + sql, e);
    }
  }

  /**
   * Drops the replication slots of a database. A slot holds WAL forever, and a database with a slot
   * cannot be dropped; the active walsender (if a connector still runs) is terminated first.
   */
  public void dropReplicationSlots(String database) {
    execute(
        "postgres",
        "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
            + " WHERE database = '"
            + database
            + "' AND active_pid IS NOT NULL",
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
            + " WHERE database = '"
            + database
            + "' AND NOT active");
  }

  /** Names of the replication slots of a database. */
  public List<String> replicationSlots(String database) {
    List<String> names = new ArrayList<>();
    try (Connection c = connect("postgres");
        var ps =
            c.prepareStatement("SELECT slot_name FROM pg_replication_slots WHERE database = ?")) {
      ps.setString(1, database);
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return names;
  }

  @Override
  public void close() {
    try {
      if (Files.exists(dataDir.resolve("postmaster.pid"))) {
        stopImmediately();
      }
    } finally {
      deleteRecursively(root);
    }
  }

  @Override
  public String toString() {
    return "PostgreSQL 15 on " + host() + ":" + port + " (" + dataDir + ")";
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
    try {
      Path log = Files.createTempFile("changelake-pg-cmd", ".log");
      try {
        Process p =
            new ProcessBuilder(command)
                .directory(asRoot ? Path.of("/tmp").toFile() : null)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException("timed out: " + String.join(" ", command));
        }
        if (p.exitValue() != 0) {
          String serverLog = "";
          Path serverLogFile = root.resolve("server.log");
          if (Files.isReadable(serverLogFile)) {
            serverLog = "\nserver.log:\n" + Files.readString(serverLogFile);
          }
          throw new IllegalStateException(
              "exit "
                  + p.exitValue()
                  + ": "
                  + String.join(" ", command)
                  + "\n"
                  + Files.readString(log)
                  + serverLog);
        }
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
