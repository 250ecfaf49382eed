package io.changelake.lsm.fault;

/**
 * Paimon refused a commit for a reason other than an unavailable store (e.g. its conflict check:
 * another committer changed the files this commit replaces). A retry is safe: the written files
 * stay pending and the next commit retries them after re-reading the table, and Paimon's {@code
 * filterAndCommit} skips whatever had landed, so nothing is lost or written twice. A retry is not
 * sure to succeed, though: a conflict over the writer's own files (the commit adds files the
 * table's current snapshot already holds, e.g. after a snapshot was rewritten under the writer)
 * fails the same way on every retry, and waiting never clears a conflict. So a caller must not keep
 * retrying in place: the sink fails the task on one ({@code FailurePolicy}), and the restarted task
 * reads its records again from the committed offsets with new writers.
 */
public final class CommitConflictException extends LakeException {
  public CommitConflictException(String message, Throwable cause) {
    super(message, cause, true);
  }
}
