package io.changelake.console.pipeline;

import io.changelake.lsm.commit.CommitMark;
import io.changelake.lsm.commit.OffsetProperties;
import io.changelake.lsm.commit.SourcePartition;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

/**
 * What a lake table's snapshots say about its input: the topics whose offsets the sink committed
 * with the data, and the newest source timestamp committed (from the sink's commit marks).
 *
 * @param topics Kafka topics the table was written from
 * @param newestSourceTimestamp the latest {@code source.ts_ms} committed; null when no commit holds
 *     one (snapshot reads, flattened records without {@code add.fields})
 * @param latestSnapshot the newest snapshot id; null without snapshots
 */
record TableLineage(Set<String> topics, Long newestSourceTimestamp, Long latestSnapshot) {

  /** How far back to look for the newest commit with offsets and with a source time. */
  static final int SNAPSHOTS_SEARCHED = 20;

  static final TableLineage EMPTY = new TableLineage(Set.of(), null, null);

  /**
   * The lineage as of the table's latest snapshot, reading only snapshots newer than {@code
   * previous} (the last lineage read of this table, or null): an unchanged table costs one look at
   * its latest snapshot id, a changed one at most {@link #SNAPSHOTS_SEARCHED} snapshot files.
   */
  static TableLineage refresh(FileStoreTable table, TableLineage previous) {
    SnapshotManager snapshots = table.snapshotManager();
    Long latestId = snapshots.latestSnapshotId();
    if (latestId == null) {
      return EMPTY;
    }
    if (previous != null && latestId.equals(previous.latestSnapshot)) {
      return previous;
    }
    // a table dropped and created again starts over at snapshot 1: nothing of before carries over
    TableLineage base =
        previous == null || previous.latestSnapshot == null || previous.latestSnapshot > latestId
            ? EMPTY
            : previous;
    Long earliest = snapshots.earliestSnapshotId();
    long stop =
        Math.max(
            latestId - SNAPSHOTS_SEARCHED, base.latestSnapshot == null ? 0 : base.latestSnapshot);
    Set<String> topics = new TreeSet<>();
    Long newest = null;
    for (long sid = latestId; sid > stop && earliest != null && sid >= earliest; sid--) {
      Snapshot snapshot;
      try {
        snapshot = snapshots.snapshot(sid);
      } catch (RuntimeException e) {
        // expired while we read: what is older is gone too
        break;
      }
      Map<String, String> properties = snapshot.properties();
      Map<SourcePartition, Long> offsets = OffsetProperties.decode(properties);
      if (topics.isEmpty()) {
        offsets.keySet().forEach(p -> topics.add(p.topic()));
      }
      // compaction commits may repeat the offsets without marks: look on for a source time
      for (String mark : OffsetProperties.decodeMarks(properties).values()) {
        Long ts = CommitMark.sourceTimestamp(mark).orElse(null);
        if (ts != null && (newest == null || ts > newest)) {
          newest = ts;
        }
      }
      if (newest != null && !topics.isEmpty()) {
        break;
      }
    }
    return new TableLineage(
        topics.isEmpty() ? base.topics : Set.copyOf(topics),
        max(newest, base.newestSourceTimestamp),
        latestId);
  }

  private static Long max(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : Math.max(a, b);
  }
}
