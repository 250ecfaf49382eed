package io.changelake.configs.platform;

/** The embedded platform cannot start or stop; the message says what to change. */
public final class PlatformException extends RuntimeException {
  public PlatformException(String message) {
    super(message);
  }

  public PlatformException(String message, Throwable cause) {
    super(message, cause);
  }
}
