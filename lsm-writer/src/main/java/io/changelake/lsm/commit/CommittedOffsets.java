package io.changelake.lsm.commit;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Reads back the Kafka offsets that commits stored in snapshot properties.
 *
 * <p>Per partition the answer is the offset of the newest snapshot (highest id) that recorded that
 * partition, among the chosen commit users. Snapshots are the source of truth; the per-user copy
 * kept by {@link OffsetFallbackStore} holds the same offsets with the snapshot that carried each,
 * so both compare on the same scale, and it answers for snapshots that expired.
 *
 * <p>Cost is bounded: snapshots are read only where a copy may lack one, i.e. from the newest
 * snapshot down to the oldest snapshot not recorded by the copy of a user whose writer is open on
 * the table (a user's snapshot lands before its copy is written, so a crash in between leaves it
 * only in the snapshot; the writer copies it when it opens the table again). Users whose writer
 * closed cleanly are answered from their copy alone. With every writer committing regularly, this
 * is the snapshots of the last commit round or so, not every retained snapshot.
 */
public final class CommittedOffsets {
  private CommittedOffsets() {}

  /** The offsets, and how many snapshot files were read to find them. */
  public record Reading(
      Map<SourcePartition, Long> offsets,
      int snapshotsRead,
      Map<SourcePartition, CommittedPartition> partitions) {}

  /**
   * Like {@link #read(FileStoreTable, String)}, with the mark each partition's newest commit
   * recorded next to its offset (both from the same commit).
   */
  public static Map<SourcePartition, CommittedPartition> readPartitions(
      FileStoreTable table, String commitUserPrefix) {
    return readPartitions(table, user -> user.startsWith(commitUserPrefix));
  }

  /** Like {@link #readPartitions(FileStoreTable, String)}, for the users {@code users} accepts. */
  public static Map<SourcePartition, CommittedPartition> readPartitions(
      FileStoreTable table, Predicate<String> users) {
    return reading(table, users).partitions();
  }

  /**
   * The next offset to consume per partition, taken from every commit user whose name starts with
   * {@code commitUserPrefix} (partitions move between tasks, so the newest offset of a partition
   * may sit in another task's snapshot).
   */
  public static Map<SourcePartition, Long> read(FileStoreTable table, String commitUserPrefix) {
    return read(table, user -> user.startsWith(commitUserPrefix));
  }

  /**
   * The next offset to consume per partition, taken from the commit users {@code users} accepts.
   */
  public static Map<SourcePartition, Long> read(FileStoreTable table, Predicate<String> users) {
    return reading(table, users).offsets();
  }

  /** Like {@link #read(FileStoreTable, Predicate)}, also counting the snapshots read. */
  public static Reading reading(FileStoreTable table, Predicate<String> users) {
    Map<String, OffsetFallbackStore.Copy> copies = new OffsetFallbackStore(table).copies(users);
    Map<SourcePartition, OffsetFallbackStore.Entry> newest =
        new HashMap<>(OffsetFallbackStore.newest(copies.values()));
    long lowest = Long.MAX_VALUE;
    for (OffsetFallbackStore.Copy copy : copies.values()) {
      if (copy.open()) {
        lowest = Math.min(lowest, copy.completeThrough() + 1);
      }
    }
    int read = 0;
    SnapshotManager snapshots = table.snapshotManager();
    Long latest = lowest == Long.MAX_VALUE ? null : snapshots.latestSnapshotId();
    Long earliest = latest == null ? null : snapshots.earliestSnapshotId();
    if (latest != null && earliest != null) {
      for (long id = latest; id >= Math.max(earliest, lowest); id--) {
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
        read++;
        if (!users.test(snapshot.commitUser())) {
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
    Map<SourcePartition, Long> offsets = new HashMap<>();
    Map<SourcePartition, CommittedPartition> partitions = new HashMap<>();
    newest.forEach(
        (partition, entry) -> {
          offsets.put(partition, entry.offset());
          partitions.put(partition, new CommittedPartition(entry.offset(), entry.mark()));
        });
    return new Reading(offsets, read, partitions);
  }
}
