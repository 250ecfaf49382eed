package io.changelake.configs.rest;

/**
 * The Connect REST API answered with an error, or could not be reached.
 *
 * <p>{@code status} is the HTTP status, or 0 when no answer came at all.
 */
public final class ConnectRestException extends RuntimeException {
  private final int status;

  public ConnectRestException(int status, String message) {
    super(message);
    this.status = status;
  }

  public ConnectRestException(String message, Throwable cause) {
    super(message, cause);
    this.status = 0;
  }

  public int status() {
    return status;
  }

  public boolean notFound() {
    return status == 404;
  }

  public boolean unreachable() {
    return status == 0;
  }
}
