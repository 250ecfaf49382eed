package io.changelake.lsm.commit;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Reads back the Kafka offsets that commits stored in snapshot properties.
 *
 * <p>Per partition the answer is the offset of the newest snapshot (highest id) that recorded that
 * partition, among all commit users with the prefix. Snapshots are the source of truth; once they
 * expire, the per-user copy kept by {@link OffsetFallbackStore} answers (it records which snapshot
 * carried each offset, so both sources compare on the same scale).
 */
public final class CommittedOffsets {
  private CommittedOffsets() {}

  /**
   * The next offset to consume per partition, taken from the latest snapshots of every commit user
   * whose name starts with {@code commitUserPrefix} (partitions move between tasks, so the newest
   * offset of a partition may sit in another task's snapshot). Falls back to the copy kept outside
   * snapshots when those have expired.
   */
  public static Map<SourcePartition, Long> read(FileStoreTable table, String commitUserPrefix) {
    Map<SourcePartition, Long> offsets = new HashMap<>();
    readPartitions(table, commitUserPrefix)
        .forEach((partition, committed) -> offsets.put(partition, committed.nextOffset()));
    return offsets;
  }

  /**
   * Like {@link #read}, with the mark each partition's newest commit recorded next to its offset
   * (both from the same commit).
   */
  public static Map<SourcePartition, CommittedPartition> readPartitions(
      FileStoreTable table, String commitUserPrefix) {
    Map<SourcePartition, OffsetFallbackStore.Entry> newest =
        new HashMap<>(new OffsetFallbackStore(table).newest(commitUserPrefix));
    SnapshotManager snapshots = table.snapshotManager();
    Long latest = snapshots.latestSnapshotId();
    Long earliest = snapshots.earliestSnapshotId();
    if (latest != null && earliest != null) {
      for (long id = latest; id >= earliest; id--) {
        Snapshot snapshot;
        try {
          snapshot = snapshots.snapshot(id);
        } catch (RuntimeException e) {
          if (snapshots.snapshotExists(id)) {
            throw e;
          }
          // expired while we were reading: older ones are gone too, the copy covers them
          break;
        }
        if (!snapshot.commitUser().startsWith(commitUserPrefix)) {
          continue;
        }
        long snapshotId = id;
        Map<SourcePartition, String> marks = OffsetProperties.decodeMarks(snapshot.properties());
        OffsetProperties.decode(snapshot.properties())
            .forEach(
                (partition, offset) ->
                    newest.merge(
                        partition,
                        new OffsetFallbackStore.Entry(
                            offset, snapshotId, Optional.ofNullable(marks.get(partition))),
                        (a, b) -> a.snapshotId() >= b.snapshotId() ? a : b));
      }
    }
    Map<SourcePartition, CommittedPartition> partitions = new HashMap<>();
    newest.forEach(
        (partition, entry) ->
            partitions.put(partition, new CommittedPartition(entry.offset(), entry.mark())));
    return partitions;
  }
}
