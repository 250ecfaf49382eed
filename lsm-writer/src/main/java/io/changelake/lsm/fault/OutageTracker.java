package io.changelake.lsm.fault;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, for one task, whether a failure is waited out or fails the task, and keeps what the
 * metrics show: time spent waiting per dependency, retries, the last error.
 *
 * <p>An outage starts with the first transient failure after a success and ends with the next
 * success ({@link #succeeded}); it is logged once when it starts (WARN) and once when it ends
 * (INFO), not per retry. Retries stop when the outage has lasted {@link RetrySettings#maxDuration}.
 * Used from the task thread; the counters may be read from any thread.
 */
public final class OutageTracker {
  private static final Logger LOG = LoggerFactory.getLogger(OutageTracker.class);

  /** What to do about a failure. */
  public sealed interface Decision {
    /** Wait {@code backoff}, then try again. */
    record Retry(Failure.Transient failure, Duration backoff, int retry) implements Decision {
      /**
       * The message of the retriable exception a task throws for this retry, the same for sink and
       * source: {@code "<doing> failed because <dependency> is unavailable (retry n in m
       * ms<detail>): <reason>"}.
       *
       * @param detail what the task does meanwhile, appended inside the parentheses; "" for nothing
       */
      public String message(String doing, String detail) {
        return doing
            + " failed because "
            + failure.dependency().description()
            + " is unavailable (retry "
            + retry
            + " in "
            + backoff.toMillis()
            + " ms"
            + detail
            + "): "
            + failure.reason();
      }
    }

    /** Fail the task with {@code message}: terminal, or transient for too long. */
    record GiveUp(Failure failure, String message) implements Decision {}
  }

  private final String task;
  private final RetrySettings settings;
  private final LongSupplier nanoClock;

  private final Map<Dependency, AtomicLong> waitedNanos = new EnumMap<>(Dependency.class);
  private final Map<Dependency, AtomicLong> retries = new EnumMap<>(Dependency.class);
  private final AtomicReference<String> lastError = new AtomicReference<>("");

  // the outage in progress, if any
  private volatile Dependency down;
  private long outageStartNanos;
  // since when the current dependency's waiting time is counted
  private volatile long chargedSinceNanos;
  private int retriesThisOutage;

  public OutageTracker(String task, RetrySettings settings) {
    this(task, settings, System::nanoTime);
  }

  /** With a clock of its own, for tests. */
  public OutageTracker(String task, RetrySettings settings, LongSupplier nanoClock) {
    this.task = task;
    this.settings = settings;
    this.nanoClock = nanoClock;
    for (Dependency d : Dependency.values()) {
      waitedNanos.put(d, new AtomicLong());
      retries.put(d, new AtomicLong());
    }
  }

  /**
   * Classifies {@code error} and decides. {@code doing} says what failed, e.g. "committing 3
   * tables", for the log line and the task's error message.
   */
  public Decision failed(Throwable error, String doing) {
    Failure failure = Failures.classify(error);
    lastError.set(doing + ": " + failure.reason());
    if (failure instanceof Failure.Terminal terminal) {
      return new Decision.GiveUp(
          terminal,
          task
              + ": "
              + doing
              + " failed and is not retried ("
              + terminal.reason()
              + "): "
              + error.getMessage());
    }
    Failure.Transient t = (Failure.Transient) failure;
    long now = nanoClock.getAsLong();
    if (down == null) {
      down = t.dependency();
      outageStartNanos = now;
      chargedSinceNanos = now;
      retriesThisOutage = 0;
      LOG.warn(
          "{}: {} failed because {} is unavailable ({}); the task stays running and retries for"
              + " up to {} s",
          task,
          doing,
          t.dependency().description(),
          t.reason(),
          settings.maxDuration().toSeconds());
    } else if (down != t.dependency()) {
      // the outage goes on, now seen through another dependency: charge its time from here on
      charge(now);
      down = t.dependency();
    }
    Duration outage = Duration.ofNanos(now - outageStartNanos);
    if (outage.compareTo(settings.maxDuration()) >= 0) {
      return new Decision.GiveUp(
          t,
          task
              + ": "
              + doing
              + " failed because "
              + t.dependency().description()
              + " has been unavailable for "
              + outage.toSeconds()
              + " s (retry.max.duration.ms="
              + settings.maxDuration().toMillis()
              + "); last error: "
              + t.reason()
              + ". Bring it back (or raise retry.max.duration.ms), then restart the task: it"
              + " resumes from the offsets committed with the table snapshots");
    }
    retriesThisOutage++;
    retries.get(t.dependency()).incrementAndGet();
    Duration backoff = settings.backoff(retriesThisOutage);
    LOG.debug("{}: retry {} in {} ms after {}", task, retriesThisOutage, backoff.toMillis(), t);
    return new Decision.Retry(t, backoff, retriesThisOutage);
  }

  /** The work went through: ends the outage in progress, if any. */
  public void succeeded() {
    if (down == null) {
      return;
    }
    long now = nanoClock.getAsLong();
    Duration outage = Duration.ofNanos(now - outageStartNanos);
    Dependency was = down;
    charge(now);
    down = null;
    LOG.info(
        "{}: {} is available again; resumed after {} s and {} retries",
        task,
        was.description(),
        outage.toSeconds(),
        retriesThisOutage);
  }

  private void charge(long now) {
    waitedNanos.get(down).addAndGet(now - chargedSinceNanos);
    chargedSinceNanos = now;
  }

  /** True while an outage is in progress. */
  public boolean inOutage() {
    return down != null;
  }

  /** Milliseconds spent waiting on {@code dependency}, the outage in progress included. */
  public long waitedMillis(Dependency dependency) {
    long total = waitedNanos.get(dependency).get();
    Dependency current = down;
    if (current == dependency) {
      total += nanoClock.getAsLong() - chargedSinceNanos;
    }
    return total / 1_000_000;
  }

  /** Retries caused by {@code dependency} since the task started. */
  public long retries(Dependency dependency) {
    return retries.get(dependency).get();
  }

  /** What failed last and why, or empty before the first failure. */
  public String lastError() {
    return lastError.get();
  }
}
