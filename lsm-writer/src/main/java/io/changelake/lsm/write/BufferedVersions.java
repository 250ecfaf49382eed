package io.changelake.lsm.write;

import io.changelake.lsm.table.MergeEngine;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * What one writer wrote since its last commit, per primary key, so a lookup of a key just written
 * need not commit to read it back.
 *
 * <p>For deduplicate tables the newest version written is the version the table will hold after the
 * commit (the writer's versions of a key arrive in order; with sequence fields, the sink's records
 * of one key come from one Kafka partition, in source order). So it is for partial-update tables
 * whose one sequence group, ordered by the table's sequence fields, holds every other column and
 * whose deletes remove the row (see {@link #newestVersionIsStored}): each version replaces the
 * whole row. That version is kept, up to a byte cap; keys written beyond the cap, and every key of
 * other tables (whose stored row is a merge of versions), are only remembered as "written", and a
 * lookup of them commits first.
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
   * @param keepVersions true when the newest version is the stored row ({@link
   *     #newestVersionIsStored})
   * @param capBytes most bytes of kept versions; beyond, keys are only remembered as written
   */
  BufferedVersions(RowType rowType, boolean keepVersions, long capBytes) {
    this.keepVersions = keepVersions;
    this.capBytes = capBytes;
    this.serializer = new InternalRowSerializer(rowType);
  }

  /**
   * True when the newest version of a key written is the row {@code table} stores: deduplicate
   * tables, and partial-update tables with exactly one sequence group whose sequence fields are the
   * table's {@code sequence.field} and whose members are every column outside the key and the
   * sequence fields, with {@code partial-update.remove-record-on-sequence-group} (a delete removes
   * the row) or {@code ignore-delete}.
   */
  static boolean newestVersionIsStored(FileStoreTable table) {
    Map<String, String> options = table.options();
    MergeEngine engine = MergeEngine.of(options);
    if (engine == MergeEngine.DEDUPLICATE) {
      return true;
    }
    if (engine != MergeEngine.PARTIAL_UPDATE
        || !(options.containsKey(CoreOptions.PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP.key())
            || "true".equals(options.get(CoreOptions.IGNORE_DELETE.key())))) {
      return false;
    }
    List<String> groups =
        options.keySet().stream()
            .filter(k -> k.startsWith("fields.") && k.endsWith(".sequence-group"))
            .toList();
    String sequence = options.get(CoreOptions.SEQUENCE_FIELD.key());
    if (groups.size() != 1 || sequence == null) {
      return false;
    }
    String group = groups.get(0);
    if (!group.equals("fields." + sequence + ".sequence-group")) {
      return false;
    }
    Set<String> members = new HashSet<>(List.of(options.get(group).split(",")));
    Set<String> others = new HashSet<>(table.rowType().getFieldNames());
    others.removeAll(table.primaryKeys());
    others.removeAll(List.of(sequence.split(",")));
    return members.equals(others);
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
