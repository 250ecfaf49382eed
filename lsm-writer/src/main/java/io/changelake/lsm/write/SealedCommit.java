package io.changelake.lsm.write;

import io.changelake.lsm.commit.CommitResult;

/**
 * The rows a {@link TableWriter} had buffered, sealed by {@link TableWriter#seal} and waiting to be
 * committed as one snapshot. {@link #land} commits them, from any thread, while the writer keeps
 * taking rows (Paimon's own split between a writer and its committer); for a table with a {@code
 * sequence.field} it also flushes them into files first (the sealed writer generation).
 */
public interface SealedCommit {

  /**
   * Commits the sealed files with the offsets given to {@code seal}, exactly as {@link
   * TableWriter#commit} would (same commit identifier, same fence, same offset copy). Call it once.
   * When the commit fails the files stay pending and the writer's next commit retries them; when
   * the flush before it fails, the writer is broken (its rows are lost from memory).
   */
  CommitResult land();

  /** A seal that had nothing to commit. */
  static SealedCommit done(CommitResult result) {
    return () -> result;
  }
}
