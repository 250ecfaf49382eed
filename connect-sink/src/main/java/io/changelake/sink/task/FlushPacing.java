package io.changelake.sink.task;

import java.time.Duration;

/**
 * How long a committer thread rests after a flush that needed only the CPU, so that a commit round
 * leaves the task thread cores to read on. On a worker with few cores, a round of many tables
 * flushing back to back takes every core the task thread reads with (issue 14: on 2 cores, reads
 * during rounds of 100 tables at 0.69 of the rate between them). After a flush that took {@code c}
 * of the thread's CPU, the thread rests {@code c} times {@link #restPerCpu} still holding its flush
 * permit, so the worker's CPU-only flushes keep their permits busy at most 1 / (1 + rest) of the
 * time; the rests end at the round's pacing window, after which the round lands at full speed: a
 * round never takes longer than the window because of them.
 *
 * <p>The window is a quarter of the commit interval, at most {@link #MAX_WINDOW}: a row waits at
 * most an interval plus its round before it is committed, and the window keeps that within the
 * interval plus two seconds. {@code -Dchangelake.sink.flush-rest=R} in the worker's JVM options
 * sets the rest per CPU-second (default 1; 0 turns the rests off, e.g. for a worker with cores to
 * spare).
 */
final class FlushPacing {
  static final Duration MAX_WINDOW = Duration.ofMillis(1_500);

  private final long windowNanos;
  private final double restPerCpu;

  FlushPacing(Duration commitInterval, double restPerCpu) {
    this.windowNanos = Math.min(commitInterval.toNanos() / 4, MAX_WINDOW.toNanos());
    this.restPerCpu = restPerCpu;
  }

  /**
   * The pacing the worker's JVM options set, for rounds every {@code commitInterval}; a setting
   * that is not a number of 0 or more fails the task's start with a message naming it.
   */
  static FlushPacing forCommitInterval(Duration commitInterval) {
    return new FlushPacing(
        commitInterval, restPerCpu(System.getProperty("changelake.sink.flush-rest")));
  }

  /**
   * How long to rest, in nanoseconds, after a flush that took {@code cpuNanos} of its thread's CPU,
   * in a round that started at {@code roundStartNanos}, at {@code nowNanos} ({@link
   * System#nanoTime} both): none once the round's window has passed.
   */
  long restNanos(long cpuNanos, long roundStartNanos, long nowNanos) {
    long left = roundStartNanos + windowNanos - nowNanos;
    if (left <= 0 || cpuNanos <= 0) {
      return 0;
    }
    return Math.min(left, (long) (cpuNanos * restPerCpu));
  }

  static double restPerCpu(String setting) {
    if (setting == null || setting.isBlank()) {
      return 1.0;
    }
    double rest;
    try {
      rest = Double.parseDouble(setting.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "changelake.sink.flush-rest must be a number of seconds of rest per CPU-second of"
              + " flushing (0 for none), was '"
              + setting
              + "'",
          e);
    }
    if (rest < 0 || Double.isNaN(rest) || Double.isInfinite(rest)) {
      throw new IllegalArgumentException(
          "changelake.sink.flush-rest must be 0 or more, was '" + setting + "'");
    }
    return rest;
  }
}
