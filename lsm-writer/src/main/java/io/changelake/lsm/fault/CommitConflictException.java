package io.changelake.lsm.fault;

/**
 * Paimon refused a commit for a reason other than an unavailable store (e.g. its conflict check:
 * another committer changed the files this commit replaces). The writer stays usable: the written
 * files stay pending and the next commit retries them after re-reading the table, and Paimon's
 * {@code filterAndCommit} skips whatever had landed, so a retry is safe.
 */
public final class CommitConflictException extends LakeException {
  public CommitConflictException(String message, Throwable cause) {
    super(message, cause, true);
  }
}
