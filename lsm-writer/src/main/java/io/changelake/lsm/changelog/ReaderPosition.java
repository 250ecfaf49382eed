package io.changelake.lsm.changelog;

import java.util.Comparator;

/**
 * A checkpoint of a changelog reader for one bucket (or for all buckets together, see {@link
 * ChangelogReader#ALL_BUCKETS}): the next change to read is the {@code rowOffset}-th change of that
 * bucket in snapshot {@code snapshotId}. The full-state phase is snapshot {@code snapshotId} with
 * {@code fullState = true}; it comes before the changes of snapshot {@code snapshotId + 1}.
 */
public record ReaderPosition(long snapshotId, long rowOffset, boolean fullState) {
  /** Order of positions of one bucket: by snapshot, then full state, then row. */
  public static final Comparator<ReaderPosition> ORDER =
      Comparator.comparingLong(ReaderPosition::snapshotId)
          .thenComparing(ReaderPosition::fullState)
          .thenComparingLong(ReaderPosition::rowOffset);

  /** The start of snapshot {@code snapshotId}'s changes. */
  public static ReaderPosition snapshotStart(long snapshotId) {
    return new ReaderPosition(snapshotId, 0, false);
  }

  /** The later of two positions of one bucket. */
  public static ReaderPosition later(ReaderPosition a, ReaderPosition b) {
    return ORDER.compare(a, b) >= 0 ? a : b;
  }

  // Written out rather than the record's generated ones: the source hashes a position for every
  // record it hands over and every acknowledgement, and the generated methods (an invokedynamic
  // method-handle chain) showed up in the task thread's profile.
  @Override
  public boolean equals(Object o) {
    return o instanceof ReaderPosition other
        && snapshotId == other.snapshotId
        && rowOffset == other.rowOffset
        && fullState == other.fullState;
  }

  @Override
  public int hashCode() {
    return (Long.hashCode(snapshotId) * 31 + Long.hashCode(rowOffset)) * 31
        + Boolean.hashCode(fullState);
  }
}
