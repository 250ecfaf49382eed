package io.changelake.lsm.testing;

import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * Small specs and catalogs for tests. The standard table is {@code (id INT NOT NULL, name STRING,
 * amount BIGINT)} keyed by {@code id}.
 */
public final class TestTables {
  private TestTables() {}

  /** The standard row type. */
  public static final RowType ID_NAME_AMOUNT =
      RowType.builder()
          .field("id", DataTypes.INT().notNull())
          .field("name", DataTypes.STRING())
          .field("amount", DataTypes.BIGINT())
          .build();

  /** A filesystem catalog on a local warehouse directory. */
  public static Catalog localCatalog(Path warehouse) {
    return CatalogFactory.createCatalog(
        CatalogContext.create(Options.fromMap(Map.of("warehouse", warehouse.toUri().toString()))));
  }

  /** Connector properties for a local warehouse, as a connector config would hold them. */
  public static Map<String, String> localConnectorProperties(Path warehouse) {
    return Map.of("paimon.warehouse", warehouse.toUri().toString());
  }

  /** The standard table with a deduplicate merge engine. */
  /**
   * A writer pool for commit user {@code user}: a small (8 MiB) budget, spill directory {@code
   * spill-<user>} under {@code dir}, writers closed as soon as they are idle.
   */
  public static WriterPool smallPool(Catalog catalog, Path dir, String user) {
    return new WriterPool(
        catalog, new WriterSettings(user, dir.resolve("spill-" + user), 8 << 20, Duration.ZERO));
  }

  public static TableSpec spec(String database, String table, int buckets) {
    return spec(database, table, buckets, ChangelogProducer.NONE, Map.of());
  }

  /** The standard table with a chosen changelog producer and extra options. */
  public static TableSpec spec(
      String database,
      String table,
      int buckets,
      ChangelogProducer producer,
      Map<String, String> options) {
    return new TableSpec(
        Identifier.create(database, table),
        ID_NAME_AMOUNT,
        List.of("id"),
        new TableLayout(List.of(), buckets, MergeEngine.DEDUPLICATE, producer, List.of(), options));
  }
}
