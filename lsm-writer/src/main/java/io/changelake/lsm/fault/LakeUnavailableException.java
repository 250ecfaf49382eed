package io.changelake.lsm.fault;

/**
 * The object store or the catalog (or its lock database) failed in a way that passes: the same call
 * again is safe, and {@link Failures} names the dependency from the cause.
 */
public final class LakeUnavailableException extends LakeException {
  public LakeUnavailableException(String message, Throwable cause) {
    super(message, cause, true);
  }
}
