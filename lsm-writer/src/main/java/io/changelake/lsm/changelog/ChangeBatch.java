package io.changelake.lsm.changelog;

import java.util.List;
import org.apache.paimon.types.RowType;

/**
 * Changes of one snapshot (or part of one, when the batch size cut it).
 *
 * @param snapshotId the snapshot
 * @param commitKind Paimon's commit kind of the snapshot (APPEND, COMPACT, OVERWRITE, ...)
 * @param rowType the schema the rows were read with
 * @param changes the changes in order
 * @param endOfSnapshot true when this batch holds the last change of the snapshot
 */
public record ChangeBatch(
    long snapshotId,
    String commitKind,
    RowType rowType,
    List<ChangeRow> changes,
    boolean endOfSnapshot) {}
