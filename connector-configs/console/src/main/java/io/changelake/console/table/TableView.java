package io.changelake.console.table;

import java.util.List;
import java.util.Map;

/**
 * Everything the table page shows, read from Paimon's metadata (and the first rows).
 *
 * @param database Paimon database
 * @param table table name
 * @param primaryKeys the primary key columns
 * @param latestSnapshot id of the newest snapshot, null for a table without one
 * @param snapshots the newest snapshots, oldest first
 * @param schemas every schema version, oldest first, each with its change to the one before
 * @param files data files per bucket and LSM level
 * @param warnings small-file and compaction-backlog warnings, in words a user can act on
 * @param consumers registered consumers and how many snapshots each is behind
 * @param rowsSnapshot the snapshot the rows were read at
 * @param columns the row preview's columns
 * @param rows the first rows at {@code rowsSnapshot}
 */
public record TableView(
    String database,
    String table,
    List<String> primaryKeys,
    Long latestSnapshot,
    List<Snapshot> snapshots,
    List<SchemaVersion> schemas,
    List<FileGroup> files,
    List<String> warnings,
    List<Consumer> consumers,
    Long rowsSnapshot,
    List<String> columns,
    List<Map<String, Object>> rows) {

  /** One commit: {@code deltaRecords} is what it added (inserts, updates and deletes). */
  public record Snapshot(
      long id,
      String commitKind,
      String commitTime,
      long totalRecords,
      long deltaRecords,
      long changelogRecords,
      long schemaId) {}

  /**
   * One schema version.
   *
   * @param added columns new in this version ({@code name TYPE})
   * @param removed columns gone since the previous one
   * @param changed columns whose type changed ({@code name: OLD -> NEW})
   */
  public record SchemaVersion(
      long id,
      String updateTime,
      List<String> columns,
      List<String> added,
      List<String> removed,
      List<String> changed) {}

  /** The data files of one LSM level of one bucket. */
  public record FileGroup(
      String partition, int bucket, int level, int files, long bytes, long records) {}

  /**
   * A registered Paimon consumer (a changelog reader) pinning snapshots from {@code nextSnapshot}.
   */
  public record Consumer(String id, long nextSnapshot, long snapshotsBehind) {}
}
