package io.changelake.lsm.catalog;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.options.Options;

/**
 * Opens Paimon catalogs from connector properties. Every key under {@link #PREFIX} is passed to
 * Paimon with the prefix removed, so users write Paimon's own option names: {@code
 * paimon.warehouse=s3://bucket/lake}, {@code paimon.s3.endpoint=...}, {@code
 * paimon.s3.path.style.access=true}, {@code paimon.metastore=jdbc}, {@code
 * paimon.lock.enabled=true}.
 *
 * <p>A local warehouse is a path or {@code file:} URI; an S3 warehouse an {@code s3://} URI, served
 * by {@code paimon-s3} with {@code paimon.s3.endpoint}, {@code paimon.s3.access-key}, {@code
 * paimon.s3.secret-key} and {@code paimon.s3.path.style.access}.
 */
public final class LakeCatalogs {
  /** Prefix of the catalog options inside connector configs. */
  public static final String PREFIX = "paimon.";

  /** The one option every catalog needs. */
  public static final String WAREHOUSE = "warehouse";

  // a lost race to create a JDBC catalog's tables is retried (see open(String, Supplier))
  private static final int OPEN_ATTEMPTS = 3;

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
              + "' to a local path (e.g. /data/lake) or an S3 URI (e.g. s3://bucket/lake)");
    }
    Options catalogOptions = Options.fromMap(options);
    // paimon-s3 and the Hadoop file systems are found through this module's class loader, which
    // under Connect's plugin isolation is the plugin's loader, not the worker's context loader
    return open(
        warehouse,
        () ->
            CatalogFactory.createCatalog(
                CatalogContext.create(catalogOptions), LakeCatalogs.class.getClassLoader()));
  }

  /**
   * Opens a catalog through {@code factory}, again when the attempt lost the race to create a JDBC
   * catalog's own tables. Paimon's JDBC catalog creates them on first open, checking for each
   * whether it exists and then creating it: tasks opening a fresh catalog database at the same time
   * race, and the losers fail on a duplicate table. By then the tables exist, so opening again
   * succeeds.
   */
  static Catalog open(String warehouse, Supplier<Catalog> factory) {
    for (int attempt = 1; ; attempt++) {
      try {
        return factory.get();
      } catch (RuntimeException e) {
        if (attempt < OPEN_ATTEMPTS && lostTableCreationRace(e)) {
          pause(attempt);
          continue;
        }
        throw new IllegalArgumentException(
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
    }
  }

  /**
   * Whether {@code e} comes from a table that another session created first: SQL state class 23
   * (PostgreSQL reports two concurrent {@code CREATE TABLE}s of one name as a duplicate key of its
   * type catalog, 23505), 42P07 (PostgreSQL) or 42S01 (MySQL), "table already exists".
   */
  static boolean lostTableCreationRace(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("23") || state.equals("42P07") || state.equals("42S01")) {
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
      throw new IllegalStateException("Interrupted while opening the Paimon catalog again", e);
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
