package io.changelake.lsm.write;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourcePartition;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * Writes rows of one table across all its buckets and commits them with Kafka offsets.
 *
 * <p>Ingest writers are write-only: they add level-0 files and never compact, so several tasks can
 * write the same buckets without conflicting. Consequences for the caller:
 *
 * <ul>
 *   <li>Run one {@link io.changelake.lsm.compact.Compactor} per table (in one task), or files pile
 *       up and reads slow down.
 *   <li>{@code changelog-producer=lookup} tables get their {@code -U/+U} changelog only when that
 *       compactor runs (it prepares its commits with {@code waitCompaction=true}); the changelog
 *       source sees their changes one compaction round later. {@code input} tables have their
 *       changelog at once, exactly as written (write {@code -U} then {@code +U} for updates if
 *       before images are wanted).
 *   <li>Offsets are recorded only by commits that wrote rows: a commit without rows creates no
 *       snapshot and leaves the table's recorded offsets as they were.
 * </ul>
 *
 * <p>Not thread-safe; one task thread uses it.
 */
public interface TableWriter {

  /** The table as this writer sees it (its schema is the one rows must match). */
  FileStoreTable table();

  /** Writes one row; its {@link org.apache.paimon.types.RowKind} says insert, update or delete. */
  void write(InternalRow row);

  /**
   * Commits everything written since the last commit as one snapshot whose properties hold {@code
   * offsets} (the next offset to consume per partition). Retrying after a failure never adds files
   * twice.
   *
   * <p>When the commit fails, its files stay pending and the next call commits them again (Paimon
   * drops what this commit user already committed), together with anything written since. An
   * exception from {@link #write} or from preparing the files leaves the writer unusable: close the
   * pool and resume from {@link io.changelake.lsm.commit.CommittedOffsets}.
   */
  CommitResult commit(Map<SourcePartition, Long> offsets);

  /**
   * Commits what is buffered, then reopens on the table's latest schema (after schema evolution).
   */
  CommitResult reopen(Map<SourcePartition, Long> offsets);

  /** True when rows were written since the last commit. */
  boolean hasUncommittedRows();
}
