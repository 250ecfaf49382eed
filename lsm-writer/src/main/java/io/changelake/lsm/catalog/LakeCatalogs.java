package io.changelake.lsm.catalog;

import java.util.HashMap;
import java.util.Map;
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
    try {
      // paimon-s3 and the Hadoop file systems are found through this module's class loader, which
      // under Connect's plugin isolation is the plugin's loader, not the worker's context loader
      return CatalogFactory.createCatalog(
          CatalogContext.create(Options.fromMap(options)), LakeCatalogs.class.getClassLoader());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Cannot open the Paimon catalog at warehouse '"
              + warehouse
              + "': "
              + e.getMessage()
              + ". Check the '"
              + PREFIX
              + "*' options (for S3: s3.endpoint, s3.access-key, s3.secret-key,"
              + " s3.path.style.access)",
          e);
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
