package io.changelake.lsm.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OutageTrackerTest {
  private final AtomicLong clock = new AtomicLong();
  private final OutageTracker tracker =
      new OutageTracker(
          "task 0",
          new RetrySettings(Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofSeconds(4)),
          clock::get);

  private static RuntimeException s3Down() {
    return new RuntimeException(new java.io.UncheckedIOException(new ConnectException("refused")));
  }

  private void advanceSeconds(long seconds) {
    clock.addAndGet(Duration.ofSeconds(seconds).toNanos());
  }

  @Test
  void retriesWithGrowingBackoffUntilTheOutageLastsTooLong() {
    OutageTracker.Decision first = tracker.failed(s3Down(), "committing");
    assertThat(first).isInstanceOf(OutageTracker.Decision.Retry.class);
    assertThat(((OutageTracker.Decision.Retry) first).backoff()).isEqualTo(Duration.ofSeconds(1));
    advanceSeconds(1);
    assertThat(((OutageTracker.Decision.Retry) tracker.failed(s3Down(), "committing")).backoff())
        .isEqualTo(Duration.ofSeconds(2));
    advanceSeconds(2);
    assertThat(((OutageTracker.Decision.Retry) tracker.failed(s3Down(), "committing")).backoff())
        .isEqualTo(Duration.ofSeconds(4));
    advanceSeconds(4);
    assertThat(((OutageTracker.Decision.Retry) tracker.failed(s3Down(), "committing")).backoff())
        .as("capped by retry.backoff.max.ms")
        .isEqualTo(Duration.ofSeconds(4));

    advanceSeconds(60);
    OutageTracker.Decision last = tracker.failed(s3Down(), "committing");
    assertThat(last).isInstanceOf(OutageTracker.Decision.GiveUp.class);
    assertThat(((OutageTracker.Decision.GiveUp) last).message())
        .contains("object store", "unavailable for 67 s", "retry.max.duration.ms=60000");
    assertThat(tracker.retries(Dependency.OBJECT_STORE)).isEqualTo(4);
    assertThat(tracker.waitedMillis(Dependency.OBJECT_STORE)).isEqualTo(67_000);
    assertThat(tracker.lastError()).contains("committing", "refused");
  }

  @Test
  void aSuccessEndsTheOutageAndTheNextOneGetsTheWholeBudget() {
    tracker.failed(s3Down(), "writing");
    advanceSeconds(50);
    tracker.succeeded();
    assertThat(tracker.inOutage()).isFalse();
    advanceSeconds(100);
    assertThat(tracker.waitedMillis(Dependency.OBJECT_STORE)).isEqualTo(50_000);

    OutageTracker.Decision again = tracker.failed(s3Down(), "writing");
    assertThat(again).isInstanceOf(OutageTracker.Decision.Retry.class);
    assertThat(((OutageTracker.Decision.Retry) again).backoff())
        .as("backoff starts over")
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void terminalFailuresAreNotRetried() {
    OutageTracker.Decision decision =
        tracker.failed(
            new RuntimeException(new java.nio.file.AccessDeniedException("s3://lake: 403")),
            "opening table db.t");
    assertThat(decision).isInstanceOf(OutageTracker.Decision.GiveUp.class);
    assertThat(((OutageTracker.Decision.GiveUp) decision).message())
        .contains("opening table db.t", "403");
    assertThat(tracker.inOutage()).isFalse();
  }
}
