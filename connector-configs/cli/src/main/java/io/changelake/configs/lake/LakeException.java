package io.changelake.configs.lake;

/** A lake command cannot answer: no such table, or the catalog cannot be opened or read. */
public final class LakeException extends RuntimeException {
  public LakeException(String message) {
    super(message);
  }

  public LakeException(String message, Throwable cause) {
    super(message, cause);
  }
}
