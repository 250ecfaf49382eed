package io.changelake.lsm.catalog;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a catalog configuration lets several committers share a table safely.
 *
 * <p>Every table the sink writes has at least two committers, even with one task: the task and its
 * compactor thread (and one more per task that consumes a partition feeding the table). Paimon's
 * filesystem catalog makes a snapshot visible by renaming it into place if absent; object stores
 * have no atomic rename, so two committers can both write snapshot {@code N}, both "succeed", and
 * one snapshot is silently lost after its offsets were reported. Paimon's filesystem catalog turns
 * its lock on by default on object stores but has no lock to offer, so this configuration is unsafe
 * without any warning. Safe are: a JDBC or Hive catalog (their lock is on by default on object
 * stores), any catalog with an explicit {@code lock.type}, or a REST catalog (the server commits).
 */
public final class CommitSafety {
  // schemes of object stores served by Paimon's file IOs (paimon-s3, -oss, -gs, -azure, -cosn,
  // -obs, -jindo); HDFS and local file systems rename atomically
  private static final Set<String> OBJECT_STORES =
      Set.of(
          "s3", "s3a", "s3n", "oss", "gs", "gcs", "abfs", "abfss", "wasb", "wasbs", "cosn", "obs",
          "jfs");
  private static final Set<String> CATALOGS_WITH_A_LOCK = Set.of("jdbc", "hive");

  private CommitSafety() {}

  /**
   * Why committing concurrently through the catalog described by {@code catalogOptions} (Paimon's
   * option names, without the connector's {@code paimon.} prefix) can lose snapshots, with the fix;
   * empty when it cannot.
   */
  public static Optional<String> problem(Map<String, String> catalogOptions) {
    String warehouse = catalogOptions.getOrDefault(LakeCatalogs.WAREHOUSE, "");
    String scheme = scheme(warehouse);
    if (!OBJECT_STORES.contains(scheme)) {
      return Optional.empty();
    }
    String metastore =
        catalogOptions.getOrDefault("metastore", "filesystem").trim().toLowerCase(Locale.ROOT);
    boolean lockDisabled = "false".equalsIgnoreCase(catalogOptions.get("lock.enabled"));
    boolean lockOffered =
        CATALOGS_WITH_A_LOCK.contains(metastore) || catalogOptions.containsKey("lock.type");
    if (metastore.equals("rest") || (lockOffered && !lockDisabled)) {
      return Optional.empty();
    }
    return Optional.of(
        "The warehouse "
            + warehouse
            + " is on an object store ("
            + scheme
            + "://), where a snapshot commit is safe only under a catalog lock: every table has"
            + " several committers (each task feeding it and its compactor), and without a lock"
            + " two of them can write the same snapshot id and one snapshot (with rows whose"
            + " offsets were already reported) is silently lost. "
            + (lockDisabled && lockOffered
                ? "paimon.lock.enabled=false turns the "
                    + metastore
                    + " catalog's lock off: remove it or set it to true."
                : "The "
                    + metastore
                    + " catalog has no lock. Use paimon.metastore=jdbc with paimon.uri,"
                    + " paimon.jdbc.user, paimon.jdbc.password and paimon.lock.enabled=true (a"
                    + " PostgreSQL or MySQL database serves), or paimon.metastore=hive or rest."));
  }

  private static String scheme(String warehouse) {
    try {
      String scheme = URI.create(warehouse.trim()).getScheme();
      return scheme == null ? "" : scheme.toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      // not a URI: a local path (or a typo Paimon reports when opening the catalog)
      return "";
    }
  }
}
