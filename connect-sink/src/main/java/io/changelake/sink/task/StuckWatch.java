package io.changelake.sink.task;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * Tells, once per stretch, when records delivered to the task stay out of the tables while the
 * committed positions do not move: rows normally reach the tables within a commit interval, and a
 * sink that stops committing must not do so silently.
 */
final class StuckWatch {
  // at least this long, and five commit intervals where those are longer
  private static final Duration AT_LEAST = Duration.ofSeconds(60);

  private Duration after;
  private Map<TopicPartition, Long> committedAt = Map.of();
  private long sinceNanos = -1;
  private boolean told;

  private StuckWatch(Duration after) {
    this.after = after;
  }

  /** A watch for a task committing every {@code commitInterval}. */
  static StuckWatch forCommitInterval(Duration commitInterval) {
    Duration intervals = commitInterval.multipliedBy(5);
    return new StuckWatch(intervals.compareTo(AT_LEAST) > 0 ? intervals : AT_LEAST);
  }

  /** Counts records uncommitted this long as stuck instead, for tests. */
  void after(Duration after) {
    this.after = after;
  }

  /**
   * How long the committed positions have stood still while records wait, the first time that is
   * longer than the watch's threshold in a stretch; empty otherwise. A stretch ends when nothing
   * waits or the committed positions move.
   *
   * @param waiting whether records were delivered and not committed
   * @param committed the committed positions now
   */
  Optional<Duration> stuckFor(boolean waiting, Map<TopicPartition, Long> committed, long nowNanos) {
    if (!waiting || sinceNanos < 0 || !committed.equals(committedAt)) {
      committedAt = committed;
      sinceNanos = waiting ? nowNanos : -1;
      told = false;
      return Optional.empty();
    }
    if (told || nowNanos - sinceNanos < after.toNanos()) {
      return Optional.empty();
    }
    told = true;
    return Optional.of(Duration.ofNanos(nowNanos - sinceNanos));
  }
}
