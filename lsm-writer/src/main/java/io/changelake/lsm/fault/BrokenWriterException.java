package io.changelake.lsm.fault;

/**
 * A writer, or state it keeps, can no longer be trusted (a failed flush, a corrupt offset copy,
 * commit identifiers taken by another instance each time): not retriable as it is. The writer must
 * be discarded and its uncommitted rows read again from the committed offsets; whether that can
 * succeed soon depends on the cause ({@link Failures}).
 */
public final class BrokenWriterException extends LakeException {
  public BrokenWriterException(String message) {
    super(message, null, false);
  }

  public BrokenWriterException(String message, Throwable cause) {
    super(message, cause, false);
  }
}
