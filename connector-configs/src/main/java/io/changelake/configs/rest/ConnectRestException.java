package io.changelake.configs.rest;

/**
 * The Connect REST API answered with an error, or could not be reached.
 *
 * <p>{@code status} is the HTTP status, or 0 when no answer came at all.
 */
public final class ConnectRestException extends RuntimeException {
  private final int status;
  private final boolean rebalancing;

  public ConnectRestException(int status, String message) {
    this(status, message, status == 409);
  }

  /**
   * @param rebalancing Connect refused the call before applying anything because a rebalance is in
   *     progress or expected: 409, or (since Kafka 3.x, for reads such as {@code GET
   *     /connectors/{name}/config}) 500 with "a rebalance is expected"; a retry is safe
   */
  public ConnectRestException(int status, String message, boolean rebalancing) {
    super(message);
    this.status = status;
    this.rebalancing = rebalancing;
  }

  public ConnectRestException(String message, Throwable cause) {
    super(message, cause);
    this.status = 0;
    this.rebalancing = false;
  }

  public int status() {
    return status;
  }

  /** Connect refused the call because it is rebalancing; nothing was applied. */
  public boolean rebalancing() {
    return rebalancing;
  }

  public boolean notFound() {
    return status == 404;
  }

  public boolean unreachable() {
    return status == 0;
  }
}
