package io.changelake.configs.quickstart;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.table.InternalColumns;
import io.changelake.lsm.table.TableRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;

/** Reads what a person wants to see of a lake table: rows, schema history, snapshots. */
final class LakeTable {
  private final Map<String, String> catalogProps;
  private final Identifier identifier;

  LakeTable(String warehouse, Identifier identifier) {
    this.catalogProps = Map.of(LakeCatalogs.PREFIX + LakeCatalogs.WAREHOUSE, warehouse);
    this.identifier = identifier;
  }

  Identifier identifier() {
    return identifier;
  }

  /** A column visible to users, with its Paimon type. */
  record Column(String name, String type) {}

  /** One version of the table's schema. */
  record SchemaVersion(long id, List<Column> columns, List<String> primaryKeys) {}

  /** One snapshot. */
  record SnapshotInfo(
      long id,
      String commitKind,
      long timeMillis,
      Long deltaRecords,
      Long totalRecords,
      long schemaId) {}

  /** The table as read now; empty when it does not exist yet. */
  record State(
      List<Column> columns,
      List<Map<String, Object>> rows,
      List<SchemaVersion> schemas,
      List<SnapshotInfo> snapshots) {}

  Optional<State> read() {
    try (Catalog catalog = LakeCatalogs.open(catalogProps)) {
      FileStoreTable table;
      try {
        table = (FileStoreTable) catalog.getTable(identifier);
      } catch (Catalog.TableNotExistException e) {
        return Optional.empty();
      }
      List<DataField> fields = table.rowType().getFields();
      List<Column> columns = visible(fields);
      return Optional.of(new State(columns, rows(table), schemas(table), snapshots(table)));
    } catch (Exception e) {
      throw new IllegalStateException(
          "Cannot read table " + identifier.getFullName() + ": " + e.getMessage(), e);
    }
  }

  private static List<Column> visible(List<DataField> fields) {
    List<Column> columns = new ArrayList<>();
    for (DataField field : fields) {
      if (!InternalColumns.isInternal(field.name())) {
        columns.add(new Column(field.name(), field.type().toString()));
      }
    }
    return columns;
  }

  /** The rows without Paimon's internal columns, values as text. */
  private static List<Map<String, Object>> rows(FileStoreTable table) throws IOException {
    return TableRows.read(
        table,
        column -> !InternalColumns.isInternal(column),
        value -> value == null ? null : value.toString());
  }

  private static List<SchemaVersion> schemas(FileStoreTable table) {
    List<SchemaVersion> versions = new ArrayList<>();
    for (TableSchema schema : table.schemaManager().listAll()) {
      versions.add(new SchemaVersion(schema.id(), visible(schema.fields()), schema.primaryKeys()));
    }
    versions.sort((a, b) -> Long.compare(a.id(), b.id()));
    return versions;
  }

  private static List<SnapshotInfo> snapshots(FileStoreTable table) throws IOException {
    List<SnapshotInfo> snapshots = new ArrayList<>();
    Iterator<Snapshot> all = table.snapshotManager().snapshots();
    while (all.hasNext()) {
      Snapshot s = all.next();
      snapshots.add(
          new SnapshotInfo(
              s.id(),
              s.commitKind().name(),
              s.timeMillis(),
              s.deltaRecordCount(),
              s.totalRecordCount(),
              s.schemaId()));
    }
    snapshots.sort((a, b) -> Long.compare(a.id(), b.id()));
    return snapshots;
  }
}
