package io.changelake.lsm.fault;

import java.time.Duration;

/**
 * How long a connector waits out a transient failure: the first retry after {@code backoff}, each
 * further one after twice the previous wait up to {@code maxBackoff}, until the failure has lasted
 * {@code maxDuration}; then the task fails. The option names and descriptions are shared by both
 * connectors' configs.
 */
public record RetrySettings(Duration maxDuration, Duration backoff, Duration maxBackoff) {
  public static final String MAX_DURATION_MS = "retry.max.duration.ms";
  public static final String BACKOFF_MS = "retry.backoff.ms";
  public static final String MAX_BACKOFF_MS = "retry.backoff.max.ms";

  public static final long DEFAULT_MAX_DURATION_MS = 600_000L;
  public static final long DEFAULT_BACKOFF_MS = 1_000L;
  public static final long DEFAULT_MAX_BACKOFF_MS = 30_000L;

  public static final String MAX_DURATION_DOC =
      "How long the task waits out a transient failure of the object store, the catalog or lock"
          + " database, or the Kafka broker (connection refused, timeouts, HTTP 5xx and 503"
          + " throttling, a database restarting, a lock wait running out) before it fails. While"
          + " it waits the task stays RUNNING and then resumes where it was: nothing is lost or"
          + " written twice. 0 fails at the first such error. Failures that retrying cannot cure"
          + " (access denied, no such bucket, a corrupt or missing file, a wrong password) fail"
          + " the task at once.";
  public static final String BACKOFF_DOC =
      "Wait before the first retry after a transient failure; each further retry waits twice as"
          + " long, up to retry.backoff.max.ms.";
  public static final String MAX_BACKOFF_DOC = "Longest wait between two retries.";

  public RetrySettings {
    if (maxBackoff.compareTo(backoff) < 0) {
      maxBackoff = backoff;
    }
  }

  /** The wait before retry number {@code retry} (1 for the first). */
  public Duration backoff(int retry) {
    long millis = backoff.toMillis();
    for (int i = 1; i < retry && millis < maxBackoff.toMillis(); i++) {
      millis *= 2;
    }
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }
}
