package io.changelake.lsm.compact;

import java.time.Duration;

/**
 * How a table is maintained.
 *
 * @param commitUser the compactor's own commit user
 * @param snapshotsRetainMin snapshots always kept
 * @param snapshotsRetainMax snapshots kept at most
 * @param snapshotTimeRetained snapshots younger than this are kept
 * @param orphanFileOlderThan files unreferenced and older than this are deleted
 */
public record CompactionSettings(
    String commitUser,
    int snapshotsRetainMin,
    int snapshotsRetainMax,
    Duration snapshotTimeRetained,
    Duration orphanFileOlderThan) {

  /** Paimon's own retention defaults (10 snapshots at least, one hour), and orphans after a day. */
  public static CompactionSettings defaults(String commitUser) {
    return new CompactionSettings(commitUser, 10, 1000, Duration.ofHours(1), Duration.ofDays(1));
  }

  public CompactionSettings {
    if (snapshotsRetainMin < 1) {
      throw new IllegalArgumentException(
          "snapshotsRetainMin must be at least 1, got " + snapshotsRetainMin);
    }
    if (snapshotsRetainMax < snapshotsRetainMin) {
      throw new IllegalArgumentException(
          "snapshotsRetainMax ("
              + snapshotsRetainMax
              + ") must not be below snapshotsRetainMin ("
              + snapshotsRetainMin
              + ")");
    }
    if (orphanFileOlderThan.compareTo(Duration.ofMinutes(1)) < 0) {
      // a file being written by an ingest task is unreferenced until its commit: deleting young
      // orphans would delete data about to be committed
      throw new IllegalArgumentException(
          "orphanFileOlderThan must be at least one minute (files of commits in progress look like"
              + " orphans), got "
              + orphanFileOlderThan);
    }
  }
}
