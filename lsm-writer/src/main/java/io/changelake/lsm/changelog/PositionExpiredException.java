package io.changelake.lsm.changelog;

/** The reader's position points at a snapshot that no longer exists. */
public final class PositionExpiredException extends RuntimeException {
  public PositionExpiredException(String message) {
    super(message);
  }
}
