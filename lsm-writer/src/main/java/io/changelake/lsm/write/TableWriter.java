package io.changelake.lsm.write;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
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
  default CommitResult commit(Map<SourcePartition, Long> offsets) {
    return commit(SourceProgress.of(offsets));
  }

  /** {@link #commit(Map)}, recording the partitions' marks next to their offsets. */
  CommitResult commit(SourceProgress progress);

  /**
   * The first half of {@link #commit(SourceProgress)}, on the writer's thread: seals everything
   * written since the last commit with {@code progress} (a pending truncate is committed first);
   * {@link SealedCommit#land} commits it, on any thread, while this writer keeps taking rows.
   *
   * <p>A primary-key table with a {@code sequence.field} hands its buffered rows (one Paimon
   * writer, a generation) to the sealed commit, which flushes them into files (sort and Parquet)
   * where it lands; a second generation takes the rows written meanwhile, and the two alternate.
   * The second writer's sequence numbers restart from the committed files, below the sealed ones:
   * the table's {@code sequence.field} orders a key's versions, so that is harmless (versions with
   * equal sequence-field values are ordered arbitrarily, as between two writers). Both generations
   * share the pool's write buffer. Any other table flushes here, on the writer's thread, and the
   * same Paimon writer goes on (its sequence numbers go on too), so rows written after the seal
   * always follow the sealed ones. When the flush fails where the commit lands, the rows are lost
   * from memory: the writer is unusable from then on (close the pool and resume from the committed
   * offsets).
   *
   * <p>Until the sealed commit has landed, everything that needs it committed waits for it: the
   * next seal or commit, a reopen, a truncate, a lookup of a key not written since the seal (unless
   * the sealed generation's newest version of it is kept, see {@link #lookup}), and closing the
   * writer. The caller must therefore land every seal it takes (or close the pool on the thread
   * that lands).
   */
  SealedCommit seal(SourceProgress progress);

  /**
   * Commits what is buffered, then reopens on the table's latest schema (after schema evolution).
   */
  default CommitResult reopen(Map<SourcePartition, Long> offsets) {
    return reopen(SourceProgress.of(offsets));
  }

  /** {@link #reopen(Map)}, recording the partitions' marks next to their offsets. */
  CommitResult reopen(SourceProgress progress);

  /**
   * Empties the table in one snapshot of its own (an overwrite with nothing) whose properties hold
   * {@code offsets}, the next offset to consume per partition, i.e. past the truncate record.
   *
   * <p>Rows written since the last commit precede the truncate, which deletes them anyway: they are
   * discarded, not committed first, so no snapshot can record offsets past the truncate without the
   * truncate itself. Earlier failed commits still pending are dropped for the same reason. The
   * truncate takes the next commit identifier: rows written after it commit with larger ones.
   *
   * <p>Idempotent: when the truncate commit fails it stays pending, and the next {@link #commit} or
   * {@code truncate} retries it before anything else; if the failed attempt had landed, Paimon
   * filters the retry out (this commit user already committed its identifier), so a retry never
   * deletes rows committed after the truncate. A task that crashed after the truncate resumes from
   * the offsets it recorded and never sees the truncate record again.
   *
   * <p>Overwrite snapshots carry no changelog: changelog readers of the table do not see the
   * truncated rows as deletes.
   *
   * @return the truncate's commit, with its snapshot (empty only when it had landed before)
   */
  default CommitResult truncate(Map<SourcePartition, Long> offsets) {
    return truncate(SourceProgress.of(offsets), SourceProgress.of(offsets), row -> false);
  }

  /**
   * Empties the table except for the rows {@code keep} accepts, in one overwrite snapshot of its
   * own (marked as a truncate) whose properties hold {@code after}, the positions just past the
   * truncate record. For a truncate that rows of other partitions may follow in the source although
   * they were consumed first: {@code keep} tells them by their source position.
   *
   * <p>Rows written since the last commit are committed first, with {@code before} (the positions
   * up to the truncate record): a crash between the two commits replays the truncate and nothing
   * else. Then the table's rows that {@code keep} accepts are written again, unchanged, into the
   * overwrite. Rows other writers commit while this runs land either before the overwrite's read
   * (and are filtered by {@code keep}) or after it (and stay).
   *
   * <p>Retried like {@link #truncate(Map)}.
   */
  CommitResult truncate(SourceProgress before, SourceProgress after, Predicate<InternalRow> keep);

  /**
   * The row currently stored under the primary key of {@code keyRow} (a row of this writer's row
   * type; only its primary-key fields are read), merged as the table's merge engine merges it, or
   * empty when there is none (never written, or deleted).
   *
   * <p>Exact also for this writer's own uncommitted rows. For a deduplicate table the newest
   * version this writer wrote of the key since the last commit is the answer, taken from the
   * writer's memory without a commit or a read (an update of a key just written, e.g. a hot row
   * with a TOASTed column, costs no snapshot); those versions are bounded by a quarter of the
   * pool's memory budget and counted in {@link WriterPool#bufferedBytes()}. Otherwise, when the key
   * was written since the last commit (or rows were written before the writer's first lookup, when
   * keys were not tracked yet), the writer first commits with {@code offsets}, exactly like {@link
   * #commit}, then reads. Pass the offsets {@link #commit} would get at this point. Rows other
   * writers have not committed yet are not seen.
   *
   * <p>Cost: see {@link KeyLookup} (one scan plan and a read of the key's bucket per call), plus a
   * commit when the key was written and its version is not kept.
   */
  default Optional<InternalRow> lookup(InternalRow keyRow, Map<SourcePartition, Long> offsets) {
    return lookup(keyRow, SourceProgress.of(offsets));
  }

  /** {@link #lookup(InternalRow, Map)}, a commit it makes recording the partitions' marks. */
  Optional<InternalRow> lookup(InternalRow keyRow, SourceProgress progress);

  /** True when rows were written since the last commit, or a commit or truncate is pending. */
  boolean hasUncommittedRows();
}
