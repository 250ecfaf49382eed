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
 * @param bytesWritten bytes of the data and changelog files this commit's writes produced (also
 *     when an earlier attempt's files are what lands: they are counted when they are written)
 */
public record CommitResult(
    Identifier table,
    long commitIdentifier,
    OptionalLong snapshotId,
    long rowsWritten,
    long bytesWritten) {}
