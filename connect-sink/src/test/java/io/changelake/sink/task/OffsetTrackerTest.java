package io.changelake.sink.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
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

  @Test
  void aBatchIsDescribedByTheFirstAndLastOffsetOfEachPartitionInTheOrderTheyCame() {
    List<SinkRecord> batch = new ArrayList<>();
    for (long offset = 0; offset < 22; offset++) {
      batch.add(record("items", 1, offset));
    }
    for (long offset = 0; offset < 12; offset++) {
      batch.add(record("items", 0, offset));
    }
    batch.add(record("orders", 0, 7));

    assertThat(OffsetTracker.offsetRanges(batch))
        .containsExactly(
            entry(new TopicPartition("items", 1), "0..21"),
            entry(new TopicPartition("items", 0), "0..11"),
            entry(new TopicPartition("orders", 0), "7..7"));
  }

  private static SinkRecord record(String topic, int partition, long offset) {
    return new SinkRecord(topic, partition, null, null, Schema.INT64_SCHEMA, offset, offset);
  }

  private static long dueAfterMillis(int task, int tasks) {
    return new OffsetTracker(INTERVAL, Long.MAX_VALUE, task, tasks).millisUntilDue();
  }
}
