package io.changelake.console.pipeline;

import io.changelake.lsm.commit.OffsetProperties;
import io.changelake.lsm.commit.SourcePartition;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.utils.SnapshotManager;

/**
 * What a lake table's snapshots say about its input: the topics whose offsets the sink committed
 * with the data, and the newest source timestamp committed (from the sink's commit marks).
 *
 * @param topics Kafka topics the table was written from
 * @param newestSourceTimestamp the latest {@code source.ts_ms} committed; null when no commit holds
 *     one (snapshot reads, flattened records without {@code add.fields})
 * @param lastCommitMillis when the newest snapshot was committed; null without snapshots
 * @param latestSnapshot the newest snapshot id; null without snapshots
 */
record TableLineage(
    Set<String> topics, Long newestSourceTimestamp, Long lastCommitMillis, Long latestSnapshot) {

  /** How far back to look for the newest commit with offsets and with a source time. */
  private static final int SNAPSHOTS_SEARCHED = 20;

  static TableLineage read(Catalog catalog, Identifier id) throws Catalog.TableNotExistException {
    Table table = catalog.getTable(id);
    if (!(table instanceof FileStoreTable fileStore)) {
      return new TableLineage(Set.of(), null, null, null);
    }
    SnapshotManager snapshots = fileStore.snapshotManager();
    Snapshot latest = snapshots.latestSnapshot();
    if (latest == null) {
      return new TableLineage(Set.of(), null, null, null);
    }
    Set<String> topics = new TreeSet<>();
    Long newest = null;
    Long earliest = snapshots.earliestSnapshotId();
    for (long sid = latest.id();
        sid > latest.id() - SNAPSHOTS_SEARCHED && earliest != null && sid >= earliest;
        sid--) {
      if (!snapshots.snapshotExists(sid)) {
        break;
      }
      Map<String, String> properties = snapshots.snapshot(sid).properties();
      Map<SourcePartition, Long> offsets = OffsetProperties.decode(properties);
      if (topics.isEmpty()) {
        offsets.keySet().forEach(p -> topics.add(p.topic()));
      }
      // compaction commits may repeat the offsets without marks: look on for a source time
      for (String mark : OffsetProperties.decodeMarks(properties).values()) {
        Long ts = sourceTimestamp(mark);
        if (ts != null && (newest == null || ts > newest)) {
          newest = ts;
        }
      }
      if (newest != null && !topics.isEmpty()) {
        break;
      }
    }
    return new TableLineage(topics, newest, latest.timeMillis(), latest.id());
  }

  /** Where the sink's commit mark holds the partition's stream position (its last part). */
  private static final String STREAM = "|stream=";

  /**
   * The {@code source.ts_ms} of a sink commit mark, {@code
   * <reached>[|truncated=<position>][|stream=KIND:value@ts@source]} (the sink's {@code
   * PartitionMark} and {@code StreamPosition}; the console cannot depend on the sink plugin); null
   * when the mark holds no stream position.
   */
  static Long sourceTimestamp(String mark) {
    int at = mark.lastIndexOf(STREAM);
    if (at < 0) {
      return null;
    }
    String stream = mark.substring(at + STREAM.length());
    int first = stream.indexOf('@');
    int second = first < 0 ? -1 : stream.indexOf('@', first + 1);
    if (second < 0) {
      return null;
    }
    try {
      return Long.parseLong(stream.substring(first + 1, second));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
