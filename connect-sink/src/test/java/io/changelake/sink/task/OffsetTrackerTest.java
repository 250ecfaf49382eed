package io.changelake.sink.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When each task of a connector first commits: staggered over the interval, not all at once. */
class OffsetTrackerTest {
  private static final Duration INTERVAL = Duration.ofSeconds(10);

  @Test
  void tasksOfAConnectorFirstCommitAtEvenlySpacedPointsOfTheInterval() {
    // task i of n: first round after (i + 1) / n of the interval
    assertThat(dueAfterMillis(0, 4)).isBetween(2_400L, 2_500L);
    assertThat(dueAfterMillis(1, 4)).isBetween(4_900L, 5_000L);
    assertThat(dueAfterMillis(2, 4)).isBetween(7_400L, 7_500L);
    assertThat(dueAfterMillis(3, 4)).isBetween(9_900L, 10_000L);
  }

  @Test
  void aSingleTaskFirstCommitsAfterAWholeInterval() {
    assertThat(dueAfterMillis(0, 1)).isBetween(9_900L, 10_000L);
    assertThat(new OffsetTracker(INTERVAL, Long.MAX_VALUE).millisUntilDue())
        .isBetween(9_900L, 10_000L);
  }

  @Test
  void afterTheFirstRoundEveryTaskCommitsAWholeIntervalLater() {
    OffsetTracker first = new OffsetTracker(INTERVAL, Long.MAX_VALUE, 0, 2);
    assertThat(first.millisUntilDue()).isLessThanOrEqualTo(5_000L);
    first.roundStarted();
    assertThat(first.millisUntilDue()).isBetween(9_900L, 10_000L);
  }

  private static long dueAfterMillis(int task, int tasks) {
    return new OffsetTracker(INTERVAL, Long.MAX_VALUE, task, tasks).millisUntilDue();
  }
}
