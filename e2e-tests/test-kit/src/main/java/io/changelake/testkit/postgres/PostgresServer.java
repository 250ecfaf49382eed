package io.changelake.testkit.postgres;

import io.changelake.configs.postgres.PostgresCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A throwaway PostgreSQL 15 cluster built from the Debian server binaries (a {@link
 * PostgresCluster}): logical decoding on, a free loopback port, a private socket directory, deleted
 * on {@link #close()}. Use one per test class; separate databases keep tests apart.
 */
public final class PostgresServer implements AutoCloseable {
  /** Where Debian's {@code postgresql-15} package puts the server binaries. */
  public static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  /** Superuser of the throwaway cluster; authentication is {@code trust} on loopback only. */
  public static final String USER = PostgresCluster.USER;

  public static final String PASSWORD = PostgresCluster.PASSWORD;

  // room for many connectors and sessions per test class; durability only costs time here
  private static final Map<String, String> SETTINGS =
      Map.of(
          "max_replication_slots", "40",
          "max_wal_senders", "40",
          "max_connections", "200",
          "shared_buffers", "64MB",
          "synchronous_commit", "off",
          "full_page_writes", "off");

  private final PostgresCluster cluster;

  private PostgresServer(PostgresCluster cluster) {
    this.cluster = cluster;
  }

  /** Creates and starts a new cluster. */
  public static PostgresServer start() {
    if (!Files.isExecutable(BIN.resolve("initdb")) || !Files.isExecutable(BIN.resolve("pg_ctl"))) {
      throw new IllegalStateException(
          "PostgreSQL 15 server binaries not found in "
              + BIN
              + ": run .ci/run (it installs them) or `apt-get install -y postgresql`");
    }
    return new PostgresServer(PostgresCluster.start(BIN, SETTINGS));
  }

  /**
   * Stops the server as a crash would ({@code -m immediate}: sessions are cut, nothing is flushed
   * politely), keeping its data: clients see connections refused until {@link #restart}.
   */
  public void stop() {
    cluster.stop();
  }

  /** Starts the stopped server again on the same port and data; returns once it accepts. */
  public void restart() {
    cluster.restart();
  }

  public String host() {
    return "127.0.0.1";
  }

  public int port() {
    return cluster.port();
  }

  /** JDBC URL of a database of this cluster. */
  public String jdbcUrl(String database) {
    return cluster.jdbcUrl(database);
  }

  public Connection connect(String database) {
    return cluster.connect(database);
  }

  /** Creates a database (name must be a plain identifier). */
  public void createDatabase(String name) {
    execute("postgres", "CREATE DATABASE " + name);
  }

  /** Runs statements in order, each in its own auto-commit transaction. */
  public void execute(String database, String... statements) {
    cluster.execute(database, statements);
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
    cluster.close();
  }

  @Override
  public String toString() {
    return cluster.toString();
  }
}
