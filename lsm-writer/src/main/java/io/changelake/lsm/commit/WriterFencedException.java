package io.changelake.lsm.commit;

/**
 * A newer writer instance commits to the table under the same commit user: this instance must stop
 * (see {@link CommitFence}). Not retriable; the rows this instance has not committed are not in the
 * table.
 */
public final class WriterFencedException extends IllegalStateException {
  public WriterFencedException(String message) {
    super(message);
  }
}
