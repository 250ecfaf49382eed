package io.changelake.console.table;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;

/**
 * Builds the table page from Paimon's system tables; only the row preview reads data files, and
 * only its first rows.
 */
public final class TableInspector {
  /** Snapshots shown in the commit chart. */
  static final int SNAPSHOTS_SHOWN = 60;

  /** Level-0 files in one bucket from which compaction counts as behind. */
  static final int LEVEL0_BACKLOG = 8;

  /** Files under this size are small. */
  static final long SMALL_FILE_BYTES = 1024L * 1024;

  /** Small files from which the table gets a warning. */
  static final int SMALL_FILES_WARNING = 50;

  /** Tables whose snapshot and file metadata is kept between polls. */
  static final int TABLES_CACHED = 64;

  /** What a table's page shows of one snapshot: unchanged until the next commit. */
  private record AtSnapshot(
      long snapshotId,
      List<TableView.Snapshot> snapshots,
      List<TableView.FileGroup> files,
      List<String> warnings) {}

  private final Catalog catalog;

  // a page polls every 2 s: read a table's snapshot list and manifests again only after a commit
  private final Map<String, AtSnapshot> cache =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, AtSnapshot> eldest) {
              return size() > TABLES_CACHED;
            }
          });

  public TableInspector(Catalog catalog) {
    this.catalog = catalog;
  }

  /**
   * The page of {@code database.table} with its first {@code rowLimit} rows at {@code atSnapshot}
   * (null: the latest).
   */
  public TableView inspect(String database, String table, Long atSnapshot, int rowLimit) {
    Identifier id = Identifier.create(database, table);
    Table data;
    try {
      data = catalog.getTable(id);
    } catch (Catalog.TableNotExistException e) {
      throw new IllegalArgumentException(
          "No table " + id.getFullName() + " in the lake: check the name (database.table)", e);
    }
    AtSnapshot metadata = metadata(id, data);
    List<TableView.Snapshot> snapshots = metadata.snapshots();
    Long latest = snapshots.isEmpty() ? null : snapshots.get(snapshots.size() - 1).id();
    List<TableView.FileGroup> files = metadata.files();
    List<TableView.Consumer> consumers =
        SystemTables.read(catalog, id, "consumers").stream()
            .map(
                r -> {
                  long next = SchemaHistory.number(r, "next_snapshot_id");
                  long behind = latest == null ? 0 : Math.max(0, latest - next + 1);
                  return new TableView.Consumer(String.valueOf(r.get("consumer_id")), next, behind);
                })
            .toList();

    Long rowsAt = atSnapshot != null ? atSnapshot : latest;
    List<Map<String, Object>> rows = List.of();
    if (rowsAt != null) {
      // time travel reads with that snapshot's own schema
      Table at = data.copy(Map.of(CoreOptions.SCAN_SNAPSHOT_ID.key(), String.valueOf(rowsAt)));
      rows = SystemTables.rows(at, rowLimit);
    }
    List<String> columns =
        rows.isEmpty() ? data.rowType().getFieldNames() : List.copyOf(rows.get(0).keySet());
    return new TableView(
        database,
        table,
        data.primaryKeys(),
        latest,
        snapshots,
        SchemaHistory.of(SystemTables.read(catalog, id, "schemas")),
        files,
        metadata.warnings(),
        consumers,
        rowsAt,
        columns,
        rows);
  }

  /**
   * The snapshot list and files of the table's latest snapshot: from the cache while no snapshot
   * was committed since (schemas and consumers change without one and are read on every call).
   */
  private AtSnapshot metadata(Identifier id, Table data) {
    String key = id.getFullName();
    Long latestId =
        data instanceof FileStoreTable fileStore
            ? fileStore.snapshotManager().latestSnapshotId()
            : null;
    AtSnapshot cached = cache.get(key);
    if (latestId != null && cached != null && cached.snapshotId() == latestId) {
      return cached;
    }
    List<TableView.Snapshot> snapshots =
        SystemTables.read(catalog, id, "snapshots").stream()
            .map(
                r ->
                    new TableView.Snapshot(
                        SchemaHistory.number(r, "snapshot_id"),
                        String.valueOf(r.get("commit_kind")),
                        String.valueOf(r.get("commit_time")),
                        SchemaHistory.number(r, "total_record_count"),
                        SchemaHistory.number(r, "delta_record_count"),
                        SchemaHistory.number(r, "changelog_record_count"),
                        SchemaHistory.number(r, "schema_id")))
            .sorted(Comparator.comparingLong(TableView.Snapshot::id))
            .toList();
    List<Map<String, Object>> fileRows = SystemTables.read(catalog, id, "files");
    List<TableView.FileGroup> files = fileGroups(fileRows);
    AtSnapshot read =
        new AtSnapshot(
            snapshots.isEmpty() ? -1 : snapshots.get(snapshots.size() - 1).id(),
            List.copyOf(
                snapshots.subList(
                    Math.max(0, snapshots.size() - SNAPSHOTS_SHOWN), snapshots.size())),
            files,
            warnings(files, fileRows));
    if (latestId != null && read.snapshotId() == latestId) {
      cache.put(key, read);
    }
    return read;
  }

  private static List<TableView.FileGroup> fileGroups(List<Map<String, Object>> fileRows) {
    record Key(String partition, int bucket, int level) {}
    Map<Key, long[]> groups =
        new TreeMap<>(
            Comparator.comparing(Key::partition)
                .thenComparingInt(Key::bucket)
                .thenComparingInt(Key::level));
    for (Map<String, Object> file : fileRows) {
      Key key =
          new Key(
              String.valueOf(file.get("partition")),
              (int) SchemaHistory.number(file, "bucket"),
              (int) SchemaHistory.number(file, "level"));
      long[] sums = groups.computeIfAbsent(key, k -> new long[3]);
      sums[0]++;
      sums[1] += SchemaHistory.number(file, "file_size_in_bytes");
      sums[2] += SchemaHistory.number(file, "record_count");
    }
    List<TableView.FileGroup> result = new ArrayList<>();
    groups.forEach(
        (k, s) ->
            result.add(
                new TableView.FileGroup(
                    k.partition(), k.bucket(), k.level(), (int) s[0], s[1], s[2])));
    return result;
  }

  static List<String> warnings(
      List<TableView.FileGroup> groups, List<Map<String, Object>> fileRows) {
    List<String> warnings = new ArrayList<>();
    for (TableView.FileGroup group : groups) {
      if (group.level() == 0 && group.files() >= LEVEL0_BACKLOG) {
        warnings.add(
            "Compaction backlog: bucket "
                + group.bucket()
                + (group.partition().equals("{}") ? "" : " of partition " + group.partition())
                + " has "
                + group.files()
                + " files in level 0. Reads merge them all: check that the sink's compaction runs"
                + " (compaction.interval.ms) and keeps up.");
      }
    }
    long small =
        fileRows.stream()
            .filter(f -> SchemaHistory.number(f, "file_size_in_bytes") < SMALL_FILE_BYTES)
            .count();
    if (small >= SMALL_FILES_WARNING) {
      warnings.add(
          small
              + " of "
              + fileRows.size()
              + " data files are smaller than 1 MiB: commit less often (commit.interval.ms) or"
              + " let compaction merge them.");
    }
    return warnings;
  }
}
