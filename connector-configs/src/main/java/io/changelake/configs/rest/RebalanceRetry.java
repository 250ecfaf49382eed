package io.changelake.configs.rest;

import java.time.Duration;

/**
 * How often a call answered with 409 Conflict is tried again. Connect answers 409 while a rebalance
 * is in progress or its config is momentarily stale, before it applied anything, so a retry is safe
 * for every endpoint; the backoff doubles from {@code firstBackoff} up to {@code maxBackoff}.
 *
 * @param attempts calls in all, the first included (1 = no retry)
 */
public record RebalanceRetry(int attempts, Duration firstBackoff, Duration maxBackoff) {
  /** About 25 s of waiting in all: longer than a rebalance of a healthy cluster takes. */
  public static final RebalanceRetry DEFAULT =
      new RebalanceRetry(7, Duration.ofMillis(500), Duration.ofSeconds(8));

  public RebalanceRetry {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
    }
  }

  /**
   * The pause before attempt {@code attempt + 1}, after attempt {@code attempt} (from 1) got 409.
   */
  Duration backoffAfter(int attempt) {
    long millis = firstBackoff.toMillis() << Math.min(attempt - 1, 20);
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }
}
