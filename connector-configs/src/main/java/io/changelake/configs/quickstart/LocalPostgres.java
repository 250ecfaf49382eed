package io.changelake.configs.quickstart;

import io.changelake.configs.platform.PlatformException;
import io.changelake.configs.postgres.PostgresCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The quickstart's throwaway PostgreSQL cluster (a {@link PostgresCluster}) holding its demo
 * database; its failures are {@link PlatformException}s, which the CLI reports as what to change.
 */
public final class LocalPostgres implements AutoCloseable {
  // a few slots and senders: the quickstart's one Debezium connector takes one of each
  private static final Map<String, String> SETTINGS =
      Map.of("max_replication_slots", "8", "max_wal_senders", "8");

  private final PostgresCluster cluster;

  private LocalPostgres(PostgresCluster cluster) {
    this.cluster = cluster;
  }

  /** The newest installed server's bin directory, e.g. /usr/lib/postgresql/15/bin. */
  public static Optional<Path> installedBin() {
    return PostgresCluster.installedBin();
  }

  /** Creates and starts a cluster in a fresh directory and creates {@code database} in it. */
  public static LocalPostgres start(Path bin, String database) {
    LocalPostgres pg = new LocalPostgres(onPlatform(() -> PostgresCluster.start(bin, SETTINGS)));
    try {
      pg.execute("postgres", "CREATE DATABASE " + database);
      return pg;
    } catch (RuntimeException e) {
      pg.close();
      throw e;
    }
  }

  public int port() {
    return cluster.port();
  }

  /** Runs SQL statements in {@code database}, in order. */
  public void execute(String database, String... statements) {
    onPlatform(
        () -> {
          cluster.execute(database, statements);
          return null;
        });
  }

  /** Stops the server and removes its directory. */
  @Override
  public void close() {
    onPlatform(
        () -> {
          cluster.close();
          return null;
        });
  }

  private static <T> T onPlatform(Supplier<T> action) {
    try {
      return action.get();
    } catch (PostgresCluster.PostgresException e) {
      throw new PlatformException("The quickstart's PostgreSQL: " + e.getMessage(), e);
    }
  }
}
