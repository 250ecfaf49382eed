package io.changelake.lsm.commit;

import java.util.OptionalLong;
import org.apache.paimon.catalog.Identifier;

/**
 * The outcome of one commit of one table.
 *
 * @param table the table
 * @param commitIdentifier the identifier used (grows per commit user, across restarts)
 * @param snapshotId the snapshot created, empty when there was nothing to commit or the batch had
 *     already been committed before (a retry)
 * @param rowsWritten rows written since the previous commit
 */
public record CommitResult(
    Identifier table, long commitIdentifier, OptionalLong snapshotId, long rowsWritten) {}
