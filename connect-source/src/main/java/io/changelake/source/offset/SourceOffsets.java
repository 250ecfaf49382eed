package io.changelake.source.offset;

import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.source.assign.BucketSet;
import io.changelake.source.assign.TableAssignment;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.paimon.catalog.Identifier;

/**
 * Connect source partitions and offsets of the changelog source.
 *
 * <p>Partition: {@code {"database": "shop", "table": "orders", "buckets": "all"}} ({@code buckets}
 * is {@code 0,2} when a task reads some buckets). Offset: {@code {"snapshot_id": 12, "row_offset":
 * 300, "full_state": false}} — the next change to publish is the {@code row_offset}-th of snapshot
 * {@code snapshot_id} (of the full-state read of that snapshot when {@code full_state}).
 *
 * <p>Offsets are per row: every record carries the offset just after its own change, so a Kafka
 * transaction or an offset flush may end after any record, also inside a snapshot (exactly-once
 * transactions split a snapshot that stays open too long). A truncate's record carries {@code
 * {"snapshot_id": S, "row_offset": 0, "full_state": true}}: the rows the truncating snapshot S
 * holds follow it as the full state of S (or, when none survived, the start of the next snapshot).
 */
public final class SourceOffsets {
  public static final String DATABASE = "database";
  public static final String TABLE = "table";
  public static final String BUCKETS = "buckets";
  public static final String SNAPSHOT_ID = "snapshot_id";
  public static final String ROW_OFFSET = "row_offset";
  public static final String FULL_STATE = "full_state";

  private SourceOffsets() {}

  /**
   * The partition of a task's table. Connect finds stored offsets by the partition's JSON bytes,
   * key order included, and its REST API (PATCH /offsets) hands partitions over as {@code
   * HashMap}s; a {@code HashMap} here serializes identically (its order depends only on the keys),
   * whereas {@code Map.of} changes order from one JVM to the next.
   */
  public static Map<String, Object> partition(TableAssignment assignment) {
    Map<String, Object> partition = new HashMap<>();
    partition.put(DATABASE, assignment.table().getDatabaseName());
    partition.put(TABLE, assignment.table().getObjectName());
    partition.put(BUCKETS, assignment.buckets().encode());
    return partition;
  }

  public static Map<String, Object> offset(ReaderPosition position) {
    Map<String, Object> offset = new LinkedHashMap<>();
    offset.put(SNAPSHOT_ID, position.snapshotId());
    offset.put(ROW_OFFSET, position.rowOffset());
    offset.put(FULL_STATE, position.fullState());
    return offset;
  }

  /** Validates a partition (e.g. one given to Connect's offsets API) and returns its table. */
  public static TableAssignment parsePartition(Map<String, ?> partition) {
    String database = requiredString(partition, DATABASE, partition);
    String table = requiredString(partition, TABLE, partition);
    String buckets = requiredString(partition, BUCKETS, partition);
    try {
      return new TableAssignment(Identifier.create(database, table), BucketSet.decode(buckets));
    } catch (NumberFormatException e) {
      throw new ConnectException(
          "Source partition " + partition + ": '" + BUCKETS + "' must be 'all' or e.g. '0,2'");
    }
  }

  /** The position stored in {@code offset}, or empty for none. */
  public static Optional<ReaderPosition> parseOffset(
      Map<String, ?> partition, Map<String, ?> offset) {
    if (offset == null) {
      return Optional.empty();
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
              + " \"buckets\": \"all\"}");
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
