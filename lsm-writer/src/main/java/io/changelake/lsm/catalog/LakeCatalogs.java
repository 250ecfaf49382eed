package io.changelake.lsm.catalog;

import io.changelake.lsm.fault.LakeUnavailableException;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.options.Options;
import org.apache.paimon.rest.exceptions.ForbiddenException;
import org.apache.paimon.rest.exceptions.NotAuthorizedException;

/**
 * Opens Paimon catalogs from connector properties. Every key under {@link #PREFIX} is passed to
 * Paimon with the prefix removed, so users write Paimon's own option names: {@code
 * paimon.warehouse=s3://bucket/lake}, {@code paimon.s3.endpoint=...}, {@code
 * paimon.s3.path.style.access=true}, {@code paimon.metastore=jdbc}, {@code
 * paimon.lock.enabled=true}.
 *
 * <p>A local warehouse is a path or {@code file:} URI; an S3 warehouse an {@code s3://} URI, served
 * by {@code paimon-s3} with {@code paimon.s3.endpoint}, {@code paimon.s3.access-key}, {@code
 * paimon.s3.secret-key} and {@code paimon.s3.path.style.access}. A REST catalog ({@code
 * paimon.metastore=rest}) is a server at {@code paimon.uri} serving the warehouse named {@code
 * paimon.warehouse}, with {@code paimon.token.provider=bear} and {@code paimon.token}.
 */
public final class LakeCatalogs {
  /** Prefix of the catalog options inside connector configs. */
  public static final String PREFIX = "paimon.";

  /** The one option every catalog needs. */
  public static final String WAREHOUSE = "warehouse";

  // a lost race to create a JDBC catalog's tables is retried (see open(String, Supplier)); an
  // attempt can lose on each of the tables Paimon creates (tables, database properties, locks)
  private static final int OPEN_ATTEMPTS = 5;

  // one monitor per JDBC catalog URI: see open(String, Supplier)
  private static final Map<String, Object> JDBC_OPENS = new ConcurrentHashMap<>();

  private LakeCatalogs() {}

  /** Opens the catalog described by the {@code paimon.*} keys of {@code connectorProps}. */
  public static Catalog open(Map<String, String> connectorProps) {
    Map<String, String> options = catalogOptions(connectorProps);
    String warehouse = options.get(WAREHOUSE);
    if (warehouse == null || warehouse.isBlank()) {
      throw new IllegalArgumentException(
          "No Paimon warehouse configured: set '"
              + PREFIX
              + WAREHOUSE
              + "' to a local path (e.g. /data/lake) or an S3 URI (e.g. s3://bucket/lake), or with"
              + " paimon.metastore=rest to the name of a warehouse the REST catalog serves");
    }
    Options catalogOptions = Options.fromMap(options);
    // paimon-s3 and the Hadoop file systems are found through this module's class loader, which
    // under Connect's plugin isolation is the plugin's loader, not the worker's context loader
    return open(
        options,
        () ->
            CatalogFactory.createCatalog(
                CatalogContext.create(catalogOptions), LakeCatalogs.class.getClassLoader()));
  }

  /**
   * Opens a catalog through {@code factory}, again when the attempt lost the race to create a JDBC
   * catalog's own tables. Paimon's JDBC catalog creates them on first open, checking for each
   * whether it exists and then creating it: tasks opening a fresh catalog database at the same time
   * race, and the losers fail on a duplicate table. By then the tables exist, so opening again
   * succeeds. Opens of one JDBC catalog in this JVM (the tasks of a worker) take turns, so only
   * tasks of different workers race: a losing attempt leaves its connection pool open (Paimon's
   * constructor throws before anything could close it), about two connections per loser.
   */
  static Catalog open(String warehouse, Supplier<Catalog> factory) {
    return open(Map.of(WAREHOUSE, warehouse), factory);
  }

  /** As {@link #open(String, Supplier)}, for the catalog {@code options} describe. */
  static Catalog open(Map<String, String> options, Supplier<Catalog> factory) {
    if (!"jdbc".equalsIgnoreCase(options.getOrDefault("metastore", "").trim())) {
      return openRetryingLostRaces(options, factory);
    }
    synchronized (
        JDBC_OPENS.computeIfAbsent(options.getOrDefault("uri", ""), uri -> new Object())) {
      return openRetryingLostRaces(options, factory);
    }
  }

  private static Catalog openRetryingLostRaces(
      Map<String, String> options, Supplier<Catalog> factory) {
    for (int attempt = 1; ; attempt++) {
      try {
        return factory.get();
      } catch (RuntimeException e) {
        if (attempt < OPEN_ATTEMPTS && lostTableCreationRace(e)) {
          pause(attempt);
          continue;
        }
        throw openFailure(options, e);
      }
    }
  }

  private static IllegalArgumentException openFailure(
      Map<String, String> options, RuntimeException e) {
    String warehouse = options.get(WAREHOUSE);
    if (!"rest".equalsIgnoreCase(options.getOrDefault("metastore", "").trim())) {
      return new IllegalArgumentException(
          "Cannot open the Paimon catalog at warehouse '"
              + warehouse
              + "': "
              + withRootCause(e)
              + ". Check the '"
              + PREFIX
              + "*' options (for S3: s3.endpoint, s3.access-key, s3.secret-key,"
              + " s3.path.style.access; for a JDBC catalog: uri, jdbc.user, jdbc.password)",
          e);
    }
    String what =
        "Cannot open the Paimon REST catalog "
            + options.get("uri")
            + " (warehouse '"
            + warehouse
            + "'): "
            + withRootCause(e)
            + ". ";
    if (refusedCredentials(e)) {
      return new IllegalArgumentException(
          what
              + "The server refused the credentials: set "
              + PREFIX
              + "token to a token it accepts, with "
              + PREFIX
              + "token.provider=bear (or, for Alibaba Cloud DLF, "
              + PREFIX
              + "token.provider=dlf and the "
              + PREFIX
              + "dlf.* keys), given through a config provider (${file:...}) rather than"
              + " written into the connector config",
          e);
    }
    return new IllegalArgumentException(
        what
            + "Check "
            + PREFIX
            + "uri (the server's base URL), "
            + PREFIX
            + "warehouse (a warehouse the server serves), "
            + PREFIX
            + "token.provider and "
            + PREFIX
            + "token",
        e);
  }

  // a REST catalog answers 401 (a missing, wrong or expired token) or 403 (a token without access)
  private static boolean refusedCredentials(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof NotAuthorizedException || t instanceof ForbiddenException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Whether {@code e} comes from a table that another session created first: SQL state class 23
   * (PostgreSQL reports two concurrent {@code CREATE TABLE}s of one name as a duplicate key of its
   * type catalog, 23505), 42P07 (PostgreSQL) or 42S01 (MySQL), "table already exists", or 42710
   * (PostgreSQL: the table's row type, created with it, "already exists" when the other session
   * committed between the two steps).
   */
  static boolean lostTableCreationRace(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("23")
            || state.equals("42P07")
            || state.equals("42S01")
            || state.equals("42710")) {
          return true;
        }
      }
    }
    return false;
  }

  // Paimon wraps the database's error ("Cannot initialize JDBC catalog"): its cause says what to
  // fix
  private static String withRootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? e.getMessage() : e.getMessage() + " (" + root + ")";
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(50, 200) * attempt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // nothing was opened or written: opening again is safe, and Failures reads the interrupt as
      // not worth waiting for (the task is being stopped)
      throw new LakeUnavailableException(
          "Interrupted while opening the Paimon catalog again (the task is stopping)", e);
    }
  }

  /** The {@code paimon.*} keys of {@code connectorProps}, with the prefix removed. */
  public static Map<String, String> catalogOptions(Map<String, String> connectorProps) {
    Map<String, String> options = new HashMap<>();
    connectorProps.forEach(
        (key, value) -> {
          if (key.startsWith(PREFIX) && key.length() > PREFIX.length()) {
            options.put(key.substring(PREFIX.length()), value);
          }
        });
    return options;
  }
}
