package io.changelake.lsm.catalog;

import java.util.Map;
import org.apache.paimon.catalog.Catalog;

/**
 * Opens Paimon catalogs from connector properties. Every key under {@link #PREFIX} is passed to
 * Paimon with the prefix removed, so users write Paimon's own option names: {@code
 * paimon.warehouse=s3://bucket/lake}, {@code paimon.s3.endpoint=...}, {@code
 * paimon.s3.path.style.access=true}, {@code paimon.metastore=jdbc}, {@code
 * paimon.lock.enabled=true}.
 */
public final class LakeCatalogs {
  /** Prefix of the catalog options inside connector configs. */
  public static final String PREFIX = "paimon.";

  private LakeCatalogs() {}

  /** Opens the catalog described by the {@code paimon.*} keys of {@code connectorProps}. */
  public static Catalog open(Map<String, String> connectorProps) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }
}
