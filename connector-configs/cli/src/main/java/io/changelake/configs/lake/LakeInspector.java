package io.changelake.configs.lake;

import io.changelake.lsm.catalog.LakeCatalogs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;

/**
 * Looks at the tables of a warehouse without an engine: the catalog is opened from {@code paimon.*}
 * options exactly as the connectors open it ({@link LakeCatalogs}), and what a table holds is read
 * from Paimon's system tables ({@code t$snapshots}, {@code t$consumers}, {@code t$files}) and
 * schema files. Read-only: nothing is written to the warehouse.
 */
public final class LakeInspector implements AutoCloseable {
  private final Catalog catalog;
  private final String warehouse;

  /**
   * @param catalogProps {@code paimon.*} keys as a connector config has them
   */
  public LakeInspector(Map<String, String> catalogProps) {
    this.warehouse = catalogProps.get(LakeCatalogs.PREFIX + LakeCatalogs.WAREHOUSE);
    try {
      this.catalog = LakeCatalogs.open(catalogProps);
    } catch (IllegalArgumentException e) {
      throw new LakeException(e.getMessage(), e);
    }
  }

  /** One table as {@code lake tables} lists it; the snapshot fields are null before a commit. */
  public record TableSummary(
      String table,
      List<String> primaryKeys,
      List<String> partitionKeys,
      String buckets,
      String mergeEngine,
      long schemaId,
      Long latestSnapshot,
      Long totalRecords,
      String lastCommitTime) {}

  /** Every table of the warehouse (of {@code database} only, when given), sorted by name. */
  public List<TableSummary> tables(String database) {
    List<TableSummary> tables = new ArrayList<>();
    try {
      List<String> databases = database == null ? catalog.listDatabases() : List.of(database);
      for (String db : databases.stream().sorted().toList()) {
        for (String name : catalog.listTables(db).stream().sorted().toList()) {
          tables.add(summary(fileStoreTable(Identifier.create(db, name))));
        }
      }
    } catch (Catalog.DatabaseNotExistException e) {
      throw new LakeException(
          "No database '"
              + database
              + "' in warehouse "
              + warehouse
              + ". 'changelake lake"
              + " tables' without --database lists every database's tables.",
          e);
    }
    return tables;
  }

  private static TableSummary summary(FileStoreTable table) {
    Snapshot latest = table.snapshotManager().latestSnapshot();
    Map<String, String> options = table.options();
    return new TableSummary(
        table.fullName(),
        table.primaryKeys(),
        table.partitionKeys(),
        options.getOrDefault("bucket", "-1"),
        options.getOrDefault("merge-engine", "deduplicate"),
        table.schema().id(),
        latest == null ? null : latest.id(),
        latest == null ? null : latest.totalRecordCount(),
        latest == null ? null : Instant.ofEpochMilli(latest.timeMillis()).toString());
  }

  /** Rows of {@code table$snapshots}, oldest first, with Paimon's column names. */
  public List<Map<String, Object>> snapshots(String table) {
    return systemTable(table, "snapshots");
  }

  /** Rows of {@code table$consumers}: each consumer id and the next snapshot it will read. */
  public List<Map<String, Object>> consumers(String table) {
    return systemTable(table, "consumers");
  }

  /** Rows of {@code table$files}: every data file of the latest snapshot, with bucket and level. */
  public List<Map<String, Object>> files(String table) {
    return systemTable(table, "files");
  }

  /** Every schema version of the table, each with its changes against the one before. */
  public List<SchemaVersion> schemas(String table) {
    List<TableSchema> all =
        new ArrayList<>(fileStoreTable(identifier(table)).schemaManager().listAll());
    all.sort((a, b) -> Long.compare(a.id(), b.id()));
    List<SchemaVersion> versions = new ArrayList<>();
    TableSchema previous = null;
    for (TableSchema schema : all) {
      versions.add(SchemaVersion.of(schema, previous));
      previous = schema;
    }
    return versions;
  }

  private List<Map<String, Object>> systemTable(String table, String system) {
    Identifier id = identifier(table);
    fileStoreTable(id);
    Identifier systemId = new Identifier(id.getDatabaseName(), id.getObjectName() + "$" + system);
    try {
      Table systemTable = catalog.getTable(systemId);
      return SystemTableRows.read(systemTable);
    } catch (Exception e) {
      throw new LakeException(
          "Cannot read " + systemId.getFullName() + " in warehouse " + warehouse + ": " + e, e);
    }
  }

  private FileStoreTable fileStoreTable(Identifier id) {
    try {
      Table table = catalog.getTable(id);
      if (table instanceof FileStoreTable fileStore) {
        return fileStore;
      }
      throw new LakeException(id.getFullName() + " is not a Paimon file-store table");
    } catch (Catalog.TableNotExistException e) {
      throw new LakeException(
          "No table "
              + id.getFullName()
              + " in warehouse "
              + warehouse
              + ". 'changelake lake tables' lists the tables there.",
          e);
    }
  }

  private Identifier identifier(String table) {
    if (!table.contains(".")) {
      throw new LakeException(
          "Give the table as DATABASE.TABLE (e.g. shop.customers), not '" + table + "'");
    }
    return Identifier.fromString(table);
  }

  @Override
  public void close() {
    try {
      catalog.close();
    } catch (Exception e) {
      throw new LakeException("Cannot close the catalog of " + warehouse + ": " + e, e);
    }
  }
}
