package io.changelake.configs.quickstart;

import io.changelake.configs.platform.PlatformException;
import io.changelake.configs.platform.Ports;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway PostgreSQL cluster with logical decoding, on a private port and socket directory,
 * started from the locally installed server binaries. As root it runs as the {@code postgres} user
 * (PostgreSQL refuses to run as root).
 */
public final class LocalPostgres implements AutoCloseable {
  private static final Path INSTALL_ROOT = Path.of("/usr/lib/postgresql");

  private final Path bin;
  private final Path home;
  private final int port;
  private boolean running;

  private LocalPostgres(Path bin, Path home, int port) {
    this.bin = bin;
    this.home = home;
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

  /** Creates and starts a cluster in a fresh directory and creates {@code database} in it. */
  public static LocalPostgres start(Path bin, String database) {
    Path home;
    try {
      // a directory the postgres user can reach even when the caller's home is private
      home = Files.createTempDirectory(Path.of("/tmp"), "changelake-pg-");
    } catch (IOException e) {
      throw new PlatformException("Cannot create a directory for PostgreSQL: " + e.getMessage(), e);
    }
    LocalPostgres pg = new LocalPostgres(bin, home, Ports.free());
    try {
      pg.initAndStart();
      pg.execute("postgres", "CREATE DATABASE " + database);
      return pg;
    } catch (RuntimeException e) {
      pg.close();
      throw e;
    }
  }

  public int port() {
    return port;
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  public Path logFile() {
    return home.resolve("postgres.log");
  }

  private void initAndStart() {
    Path data = home.resolve("data");
    Path sockets = home.resolve("run");
    try {
      Files.createDirectories(sockets);
    } catch (IOException e) {
      throw new PlatformException("Cannot prepare " + home + ": " + e.getMessage(), e);
    }
    if (asRoot()) {
      run(List.of("chown", "-R", "postgres:postgres", home.toString()), false);
    }
    run(
        List.of(
            bin.resolve("initdb").toString(),
            "-D",
            data.toString(),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync"),
        true);
    run(
        List.of(
            bin.resolve("pg_ctl").toString(),
            "-D",
            data.toString(),
            "-l",
            logFile().toString(),
            "-w",
            "-t",
            "60",
            "-o",
            "-c port="
                + port
                + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
                + sockets
                + " -c wal_level=logical -c max_replication_slots=8 -c max_wal_senders=8"
                + " -c fsync=off",
            "start"),
        true);
    running = true;
  }

  /** Runs SQL statements in {@code database}, in order. */
  public void execute(String database, String... statements) {
    try (Connection connection = DriverManager.getConnection(jdbcUrl(database), "postgres", "");
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new PlatformException(
          "SQL failed on the quickstart PostgreSQL (port " + port + "): " + e.getMessage(), e);
    }
  }

  /** Stops the server and removes its directory. */
  @Override
  public void close() {
    if (running) {
      running = false;
      run(
          List.of(
              bin.resolve("pg_ctl").toString(),
              "-D",
              home.resolve("data").toString(),
              "-m",
              "fast",
              "-w",
              "stop"),
          true);
    }
    try {
      new ProcessBuilder("rm", "-rf", home.toString())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor(60, TimeUnit.SECONDS);
    } catch (IOException e) {
      // a directory left behind in /tmp loses nothing
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Output of initdb and pg_ctl; outside the cluster directory, which belongs to postgres. */
  private Path commandLog() {
    return Path.of(home + ".log");
  }

  private static boolean asRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private void run(List<String> command, boolean asPostgres) {
    List<String> full = new ArrayList<>();
    if (asPostgres && asRoot()) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    try {
      Process process =
          new ProcessBuilder(full)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(commandLog().toFile()))
              .start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new PlatformException("Timed out: " + String.join(" ", full));
      }
      if (process.exitValue() != 0) {
        String output = Files.readString(commandLog());
        throw new PlatformException(
            "PostgreSQL command failed ("
                + process.exitValue()
                + "): "
                + String.join(" ", full)
                + "\n"
                + output);
      }
    } catch (IOException e) {
      throw new PlatformException("Cannot run " + full.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PlatformException("Interrupted while running " + full.get(0), e);
    }
  }
}
