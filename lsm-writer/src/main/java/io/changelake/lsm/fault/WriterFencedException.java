package io.changelake.lsm.fault;

/**
 * A newer writer instance commits to the table under the same commit user: this instance must stop
 * (see {@link io.changelake.lsm.commit.CommitFence}). Not retriable; the rows this instance has not
 * committed are not in the table.
 */
public final class WriterFencedException extends LakeException {
  public WriterFencedException(String message) {
    super(message, null, false);
  }
}
