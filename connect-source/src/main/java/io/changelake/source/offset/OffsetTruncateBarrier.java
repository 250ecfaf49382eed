package io.changelake.source.offset;

import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.lsm.changelog.RegisteredConsumer;
import io.changelake.lsm.changelog.TruncateBarrier;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

/**
 * Orders a truncate with the changes of buckets other readers (other tasks) publish, through what
 * every task can read: the connector's stored offsets (per bucket, committed with the records under
 * exactly-once, flushed after them otherwise) and its Paimon consumers (each a floor for its
 * buckets, see {@link RestorePlan}).
 *
 * <ul>
 *   <li>The reader owning {@link ChangelogReader#TRUNCATE_BUCKET} announces the truncate of
 *       snapshot S once every other bucket is known to have published everything before S: its
 *       stored offset or a consumer covering it is at S or later.
 *   <li>The other readers read their rows after the truncate once the truncate is stored: the
 *       truncate bucket's offset is at or after the truncate ({@code (S, 0, full)}), or a consumer
 *       covering that bucket is past S.
 * </ul>
 *
 * So in one topic partition a consumer finds every row before the truncate ahead of it and every
 * row after it behind it, whichever task published them. Only for readers that do not read every
 * bucket of the table; one that does needs no barrier.
 *
 * @param table the table
 * @param id its name (source partitions name it)
 * @param consumerBase the connector's Paimon consumer id base
 * @param others the table's buckets this reader does not read
 * @param offsets the task's view of the connector's stored offsets
 */
public record OffsetTruncateBarrier(
    FileStoreTable table,
    Identifier id,
    String consumerBase,
    Set<Integer> others,
    OffsetStorageReader offsets)
    implements TruncateBarrier {

  public OffsetTruncateBarrier {
    others = Set.copyOf(others);
  }

  /** The barrier of a reader of {@code buckets} of a table with {@code bucketCount} buckets. */
  public static TruncateBarrier of(
      FileStoreTable table,
      Identifier id,
      String consumerBase,
      Set<Integer> buckets,
      int bucketCount,
      OffsetStorageReader offsets) {
    if (buckets.isEmpty() || bucketCount < 1) {
      return TruncateBarrier.NONE; // read whole by one reader
    }
    Set<Integer> others = new java.util.TreeSet<>();
    for (int bucket = 0; bucket < bucketCount; bucket++) {
      if (!buckets.contains(bucket)) {
        others.add(bucket);
      }
    }
    return others.isEmpty()
        ? TruncateBarrier.NONE
        : new OffsetTruncateBarrier(table, id, consumerBase, others, offsets);
  }

  @Override
  public boolean mayAnnounce(long snapshotId) {
    ReaderPosition before = ReaderPosition.snapshotStart(snapshotId);
    Map<Integer, Optional<ReaderPosition>> stored = stored(others);
    List<RegisteredConsumer> consumers = ChangelogReader.consumers(table, consumerBase);
    for (int bucket : others) {
      boolean published =
          stored.get(bucket).filter(p -> ReaderPosition.ORDER.compare(p, before) >= 0).isPresent()
              || consumers.stream()
                  .anyMatch(c -> c.covers(bucket) && c.nextSnapshot() >= snapshotId);
      if (!published) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean mayFollow(long snapshotId) {
    ReaderPosition truncated = new ReaderPosition(snapshotId, 0, true);
    int bucket = ChangelogReader.TRUNCATE_BUCKET;
    // a consumer past the snapshot also says so (the offset may be under an earlier version's
    // partition)
    return stored(Set.of(bucket))
            .get(bucket)
            .filter(p -> ReaderPosition.ORDER.compare(p, truncated) >= 0)
            .isPresent()
        || ChangelogReader.consumers(table, consumerBase).stream()
            .anyMatch(c -> c.covers(bucket) && c.nextSnapshot() > snapshotId);
  }

  private Map<Integer, Optional<ReaderPosition>> stored(Set<Integer> buckets) {
    Map<Integer, Map<String, Object>> partitions = new HashMap<>();
    for (int bucket : buckets) {
      partitions.put(bucket, SourceOffsets.partition(id, bucket));
    }
    Map<Map<String, Object>, Map<String, Object>> found = offsets.offsets(partitions.values());
    Map<Integer, Optional<ReaderPosition>> positions = new HashMap<>();
    partitions.forEach(
        (bucket, partition) ->
            positions.put(
                bucket,
                SourceOffsets.parseOffset(partition, found == null ? null : found.get(partition))));
    return positions;
  }
}
