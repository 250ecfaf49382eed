package io.changelake.lsm.write;

import io.changelake.lsm.commit.CommitResult;

/**
 * The rows a {@link TableWriter} had buffered, sealed by {@link TableWriter#seal} and waiting to be
 * committed as one snapshot. {@link #land} commits them, from any thread, while the writer keeps
 * taking rows (Paimon's own split between a writer and its committer); for a table with a {@code
 * sequence.field} it also flushes them into files first (the sealed writer generation).
 *
 * <p>Call {@link #flush} and {@link #land} from one thread: a committer that limits how many
 * flushes run at once calls {@link #flush} under its limit, then {@link #land} outside it.
 */
public interface SealedCommit {

  /**
   * Commits the sealed files with the offsets given to {@code seal}, exactly as {@link
   * TableWriter#commit} would (same commit identifier, same fence, same offset copy). Call it once.
   * When the commit fails the files stay pending and the writer's next commit retries them; when
   * the flush before it fails, the writer is broken (its rows are lost from memory).
   */
  CommitResult land();

  /**
   * Flushes the sealed rows into files now (sort and Parquet), when the seal left them in memory;
   * {@link #land} then only commits. A no-op when there is nothing left to flush. A failure breaks
   * the writer, as a failed flush in {@link #land} does, and {@link #land} must not follow it.
   */
  default void flush() {}

  /**
   * True while {@link #flush} has work that waits for nothing but the CPU: sealed rows to sort and
   * encode into files on a file system that is not an object store (a local disk answers writes
   * from its page cache). A flush to an object store also waits for its uploads.
   */
  default boolean flushNeedsOnlyCpu() {
    return false;
  }

  /** A seal that had nothing to commit. */
  static SealedCommit done(CommitResult result) {
    return () -> result;
  }
}
