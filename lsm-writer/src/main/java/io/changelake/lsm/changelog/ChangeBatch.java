package io.changelake.lsm.changelog;

import java.util.List;
import org.apache.paimon.types.RowType;

/**
 * Changes of one snapshot (or part of one, when the batch size cut it).
 *
 * <p>A snapshot that truncated the table (see {@link io.changelake.lsm.commit.TruncateMarker};
 * Paimon's overwrite snapshots carry no changelog) is read as a truncate followed by the rows the
 * table holds after it, as a full state: its first batch has {@link #truncatePosition()} set and
 * {@link #fullState()} true, and may have no changes at all when no row survived.
 *
 * @param snapshotId the snapshot
 * @param commitKind Paimon's commit kind of the snapshot (APPEND, COMPACT, OVERWRITE, ...)
 * @param rowType the schema the rows were read with
 * @param changes the changes in order
 * @param endOfSnapshot true when this batch holds the last change of the snapshot
 * @param fullState true when the changes are rows of a full state (the start of a reader that
 *     starts with the full state, or the rows after a truncate), all inserts
 * @param truncatePosition when the table was emptied just before these changes, the position just
 *     after the truncate (checkpoint it once the truncate is durable downstream); else null
 */
public record ChangeBatch(
    long snapshotId,
    String commitKind,
    RowType rowType,
    List<ChangeRow> changes,
    boolean endOfSnapshot,
    boolean fullState,
    ReaderPosition truncatePosition) {

  /** A batch of plain changes (no full state, no truncate). */
  public ChangeBatch(
      long snapshotId,
      String commitKind,
      RowType rowType,
      List<ChangeRow> changes,
      boolean endOfSnapshot) {
    this(snapshotId, commitKind, rowType, changes, endOfSnapshot, false, null);
  }

  /** True when the batch starts with a truncate of the table. */
  public boolean truncates() {
    return truncatePosition != null;
  }
}
