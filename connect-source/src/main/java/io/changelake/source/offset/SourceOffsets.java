package io.changelake.source.offset;

import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.source.assign.BucketSet;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.paimon.catalog.Identifier;

/**
 * Connect source partitions and offsets of the changelog source.
 *
 * <p>Partition: one per bucket, {@code {"database": "shop", "table": "orders", "bucket": "3"}}
 * ({@code "all"} for a table whose buckets are not fixed, read whole by one task). It does not
 * depend on {@code tasks.max} or on how many tables there are, so a re-split keeps every offset.
 * Offset: {@code {"snapshot_id": 12, "row_offset": 300, "full_state": false}} — the next change of
 * that bucket to publish is its {@code row_offset}-th of snapshot {@code snapshot_id} (of the
 * full-state read of that snapshot when {@code full_state}).
 *
 * <p>Offsets are per row: every record carries the offset just after its own change, so a Kafka
 * transaction or an offset flush may end after any record, also inside a snapshot (exactly-once
 * transactions split a snapshot that stays open too long). A truncate's record belongs to bucket
 * {@link ChangelogReader#TRUNCATE_BUCKET} and carries {@code {"snapshot_id": S, "row_offset": 0,
 * "full_state": true}} (that bucket's rows in the truncating snapshot S follow it as the full state
 * of S) or, when that bucket holds no row after it, the start of the next snapshot.
 *
 * <p>Earlier versions kept one partition per task's bucket set ({@code "buckets": "all"} or {@code
 * "0,2"}, {@link #legacyPartition}); a bucket without an offset of its own resumes from such a
 * partition's offset ({@link RestorePlan}).
 */
public final class SourceOffsets {
  public static final String DATABASE = "database";
  public static final String TABLE = "table";
  public static final String BUCKET = "bucket";
  public static final String LEGACY_BUCKETS = "buckets";
  public static final String SNAPSHOT_ID = "snapshot_id";
  public static final String ROW_OFFSET = "row_offset";
  public static final String FULL_STATE = "full_state";
  private static final String ALL = "all";

  private SourceOffsets() {}

  /**
   * The partition of one bucket of a table ({@link ChangelogReader#ALL_BUCKETS}: all of them).
   * Connect finds stored offsets by the partition's JSON bytes, key order included, and its REST
   * API (PATCH /offsets) hands partitions over as {@code HashMap}s; a {@code HashMap} here
   * serializes identically (its order depends only on the keys), whereas {@code Map.of} changes
   * order from one JVM to the next.
   */
  public static Map<String, Object> partition(Identifier table, int bucket) {
    Map<String, Object> partition = new HashMap<>();
    partition.put(DATABASE, table.getDatabaseName());
    partition.put(TABLE, table.getObjectName());
    partition.put(BUCKET, bucket == ChangelogReader.ALL_BUCKETS ? ALL : Integer.toString(bucket));
    return partition;
  }

  /** The partition earlier versions kept for a task's bucket set (empty: all buckets). */
  public static Map<String, Object> legacyPartition(Identifier table, Set<Integer> buckets) {
    Map<String, Object> partition = new HashMap<>();
    partition.put(DATABASE, table.getDatabaseName());
    partition.put(TABLE, table.getObjectName());
    partition.put(LEGACY_BUCKETS, BucketSet.of(buckets).encode());
    return partition;
  }

  /** The partition as JSON, for messages that show users what to PATCH. */
  public static String partitionJson(Identifier table, int bucket) {
    return "{\"database\": \""
        + table.getDatabaseName()
        + "\", \"table\": \""
        + table.getObjectName()
        + "\", \"bucket\": \""
        + partition(table, bucket).get(BUCKET)
        + "\"}";
  }

  /**
   * The offset of {@code position}: an unmodifiable map of {@code snapshot_id}, {@code row_offset}
   * and {@code full_state} in that order. Every record carries one and Connect holds it until Kafka
   * acknowledges the record, so it is a view of the position (one small object) rather than a map
   * of boxed values (six objects); Connect serializes it, equals and hashes it like any map.
   */
  public static Map<String, Object> offset(ReaderPosition position) {
    return new PositionOffset(position);
  }

  /** The offset map of a position, built on demand from it (see {@link #offset}). */
  private static final class PositionOffset extends AbstractMap<String, Object> {
    private final ReaderPosition position;

    PositionOffset(ReaderPosition position) {
      this.position = position;
    }

    @Override
    public Object get(Object key) {
      if (SNAPSHOT_ID.equals(key)) {
        return position.snapshotId();
      }
      if (ROW_OFFSET.equals(key)) {
        return position.rowOffset();
      }
      return FULL_STATE.equals(key) ? position.fullState() : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return SNAPSHOT_ID.equals(key) || ROW_OFFSET.equals(key) || FULL_STATE.equals(key);
    }

    @Override
    public int size() {
      return 3;
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
      Map<String, Object> entries = new LinkedHashMap<>();
      entries.put(SNAPSHOT_ID, position.snapshotId());
      entries.put(ROW_OFFSET, position.rowOffset());
      entries.put(FULL_STATE, position.fullState());
      return Collections.unmodifiableMap(entries).entrySet();
    }
  }

  /**
   * A table and buckets named by a source partition: one bucket, or (partitions of earlier
   * versions) a bucket set.
   *
   * @param buckets the buckets; empty for all of them
   */
  public record PartitionBuckets(Identifier table, Set<Integer> buckets) {
    public PartitionBuckets {
      buckets = Set.copyOf(buckets);
    }

    /** True when the partition names bucket {@code bucket} (every bucket when it names all). */
    public boolean covers(int bucket) {
      return buckets.isEmpty() || buckets.contains(bucket);
    }
  }

  /**
   * Validates a partition (e.g. one given to Connect's offsets API, also of an earlier version's
   * bucket-set shape) and returns its table and buckets.
   */
  public static PartitionBuckets parsePartition(Map<String, ?> partition) {
    String database = requiredString(partition, DATABASE, partition);
    String table = requiredString(partition, TABLE, partition);
    Identifier id = Identifier.create(database, table);
    if (!partition.containsKey(BUCKET) && partition.get(LEGACY_BUCKETS) instanceof String legacy) {
      try {
        return new PartitionBuckets(id, BucketSet.decode(legacy).buckets());
      } catch (NumberFormatException e) {
        throw new ConnectException(
            "Source partition "
                + partition
                + ": '"
                + LEGACY_BUCKETS
                + "' must be 'all' or e.g. '0,2'");
      }
    }
    String bucket = requiredString(partition, BUCKET, partition);
    if (ALL.equals(bucket)) {
      return new PartitionBuckets(id, Set.of());
    }
    try {
      int number = Integer.parseInt(bucket);
      if (number >= 0) {
        return new PartitionBuckets(id, Set.of(number));
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConnectException(
        "Source partition "
            + partition
            + ": '"
            + BUCKET
            + "' must be a bucket number such as \"3\", or \"all\" for a table whose buckets are"
            + " not fixed");
  }

  /** The position stored in {@code offset}, or empty for none. */
  public static Optional<ReaderPosition> parseOffset(
      Map<String, ?> partition, Map<String, ?> offset) {
    if (offset == null) {
      return Optional.empty();
    }
    if (offset instanceof PositionOffset own) {
      return Optional.of(own.position);
    }
    long snapshotId = requiredLong(offset, SNAPSHOT_ID, partition);
    long rowOffset = requiredLong(offset, ROW_OFFSET, partition);
    Object fullState = offset.get(FULL_STATE);
    if (!(fullState instanceof Boolean)) {
      throw invalid(partition, offset, FULL_STATE, "true or false");
    }
    if (snapshotId < 1 || rowOffset < 0) {
      throw invalid(partition, offset, SNAPSHOT_ID, "snapshot_id >= 1 and row_offset >= 0");
    }
    return Optional.of(new ReaderPosition(snapshotId, rowOffset, (Boolean) fullState));
  }

  private static String requiredString(Map<String, ?> map, String key, Map<String, ?> partition) {
    Object value = map.get(key);
    if (!(value instanceof String text) || text.isEmpty()) {
      throw new ConnectException(
          "Source partition "
              + partition
              + " lacks the string field '"
              + key
              + "'; partitions look like {\"database\": \"shop\", \"table\": \"orders\","
              + " \"bucket\": \"0\"}");
    }
    return text;
  }

  private static long requiredLong(Map<String, ?> offset, String key, Map<String, ?> partition) {
    Object value = offset.get(key);
    if (!(value instanceof Number number)) {
      throw invalid(partition, offset, key, "a number");
    }
    return number.longValue();
  }

  private static ConnectException invalid(
      Map<String, ?> partition, Map<String, ?> offset, String key, String expected) {
    return new ConnectException(
        "Offset "
            + offset
            + " of source partition "
            + partition
            + ": '"
            + key
            + "' must be "
            + expected
            + "; offsets look like {\"snapshot_id\": 12, \"row_offset\": 0, \"full_state\":"
            + " false}");
  }
}
