package io.changelake.lsm.write;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * What one writer wrote since its last commit, per primary key, so a lookup of a key just written
 * need not commit to read it back.
 *
 * <p>For deduplicate tables the newest version written is the version the table will hold after the
 * commit (the writer's versions of a key arrive in order; with sequence fields, the sink's records
 * of one key come from one Kafka partition, in source order). That version is kept, up to a byte
 * cap; keys written beyond the cap, and every key of other merge engines (whose stored row is a
 * merge of versions), are only remembered as "written", and a lookup of them commits first.
 */
final class BufferedVersions {

  /** What the writer knows about a key since its last commit. */
  sealed interface Known {}

  /** The key was not written since the last commit: the table's committed row is exact. */
  record NotWritten() implements Known {}

  /** The key was written, its version is not kept: commit before reading the table. */
  record WrittenNotKept() implements Known {}

  /** The newest version written; empty when it was a delete. */
  record Latest(Optional<InternalRow> row) implements Known {}

  private final boolean keepVersions;
  private final long capBytes;
  private final InternalRowSerializer serializer;
  private final Map<BinaryRow, BinaryRow> latest = new HashMap<>();
  private final Set<BinaryRow> writtenNotKept = new HashSet<>();
  private long bytes;

  /**
   * @param keepVersions true for deduplicate tables, the only engine whose newest version is the
   *     stored row
   * @param capBytes most bytes of kept versions; beyond, keys are only remembered as written
   */
  BufferedVersions(RowType rowType, boolean keepVersions, long capBytes) {
    this.keepVersions = keepVersions;
    this.capBytes = capBytes;
    this.serializer = new InternalRowSerializer(rowType);
  }

  /** Notes {@code row} (just written) under its primary key {@code key}. */
  void written(BinaryRow key, InternalRow row) {
    BinaryRow previous = latest.remove(key);
    if (previous != null) {
      bytes -= previous.getSizeInBytes();
    }
    if (!keepVersions || writtenNotKept.contains(key)) {
      writtenNotKept.add(key);
      return;
    }
    BinaryRow copy = serializer.toBinaryRow(row).copy();
    if (bytes + copy.getSizeInBytes() > capBytes) {
      writtenNotKept.add(key);
      return;
    }
    latest.put(key, copy);
    bytes += copy.getSizeInBytes();
  }

  Known find(BinaryRow key) {
    BinaryRow row = latest.get(key);
    if (row != null) {
      boolean removed =
          row.getRowKind() == RowKind.DELETE || row.getRowKind() == RowKind.UPDATE_BEFORE;
      return new Latest(removed ? Optional.empty() : Optional.of(row));
    }
    return writtenNotKept.contains(key) ? new WrittenNotKept() : new NotWritten();
  }

  /** Bytes held by kept versions. */
  long bytes() {
    return bytes;
  }

  /** Everything written is committed (or discarded): forget it. */
  void clear() {
    latest.clear();
    writtenNotKept.clear();
    bytes = 0;
  }
}
