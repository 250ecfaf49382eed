package io.changelake.e2e.bench;

import io.changelake.lsm.testing.LakeTableReader;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;

/** Reads what each snapshot of a lake table added, with each snapshot's commit time. */
final class LakeSnapshots implements AutoCloseable {

  /** The rows of one committed snapshot and when it was committed. */
  record SnapshotRows(long snapshotId, long committedAtMillis, List<Map<String, Object>> rows) {}

  private final Catalog catalog;
  private final Identifier table;
  // looked up once it exists: a lookup reads the schema files, and the latency probe asks every
  // table for its latest snapshot many times a second, on the cores the sink is measured on
  private FileStoreTable found;

  LakeSnapshots(Path warehouse, String database, String table) {
    Map<String, String> options = new HashMap<>(LakeTableReader.fileWarehouse(warehouse));
    options.put("cache-enabled", "false");
    this.catalog = CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)));
    this.table = Identifier.create(database, table);
  }

  private FileStoreTable table() throws Catalog.TableNotExistException {
    if (found == null) {
      found = (FileStoreTable) catalog.getTable(table);
    }
    return found;
  }

  /** The latest snapshot id, or 0 while the table or its first snapshot does not exist. */
  long latestSnapshotId() {
    try {
      Long id = table().snapshotManager().latestSnapshotId();
      return id == null ? 0 : id;
    } catch (Catalog.TableNotExistException e) {
      return 0;
    }
  }

  /** The kind of the latest snapshot (APPEND, COMPACT, ...), or null without snapshots. */
  String latestCommitKind() {
    try {
      var snapshots = table().snapshotManager();
      Long latest = snapshots.latestSnapshotId();
      return latest == null ? null : snapshots.snapshot(latest).commitKind().name();
    } catch (Catalog.TableNotExistException e) {
      return null;
    }
  }

  /**
   * Data files of the latest snapshot still in level 0, not yet compacted (a full read of a table
   * with the lookup changelog producer does not see their rows); 0 without snapshots.
   */
  long level0Files() {
    try {
      FileStoreTable t = table();
      return t.newSnapshotReader().read().splits().stream()
          .filter(split -> split instanceof org.apache.paimon.table.source.DataSplit)
          .flatMap(split -> ((org.apache.paimon.table.source.DataSplit) split).dataFiles().stream())
          .filter(file -> file.level() == 0)
          .count();
    } catch (Catalog.TableNotExistException e) {
      return 0;
    }
  }

  /**
   * The rows of the data files snapshot {@code snapshotId} added, with its commit time: every row
   * of the table's earliest snapshot, the delta of any later one (none for a compaction). Reading
   * only what a snapshot added keeps a watcher of many often committed tables in step with them;
   * reading each snapshot whole fell behind at 100 tables and missed rows that were committed
   * (issue 14).
   */
  SnapshotRows added(long snapshotId) {
    try {
      FileStoreTable t = table();
      long time = t.snapshotManager().snapshot(snapshotId).timeMillis();
      Long earliest = t.snapshotManager().earliestSnapshotId();
      Map<String, String> scan =
          earliest == null || snapshotId <= earliest
              ? Map.of("scan.snapshot-id", String.valueOf(snapshotId))
              // Paimon's default for tables with a changelog producer reads the changelog instead
              : Map.of(
                  "incremental-between",
                  (snapshotId - 1) + "," + snapshotId,
                  "incremental-between-scan-mode",
                  "delta");
      return new SnapshotRows(snapshotId, time, LakeTableReader.readTable(t.copy(scan)));
    } catch (Exception e) {
      throw new IllegalStateException("cannot read snapshot " + snapshotId + " of " + table, e);
    }
  }

  @Override
  public void close() throws Exception {
    catalog.close();
  }
}
