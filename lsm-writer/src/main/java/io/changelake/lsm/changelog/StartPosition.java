package io.changelake.lsm.changelog;

/** Where a changelog reader starts when it has no checkpoint. */
public sealed interface StartPosition {
  /** The full current state (as inserts), then every change after it. */
  record FullThenChanges() implements StartPosition {}

  /** Only changes committed after the reader starts. */
  record Latest() implements StartPosition {}

  /** Changes from this snapshot on (inclusive). */
  record FromSnapshot(long snapshotId) implements StartPosition {}

  /** Changes of snapshots committed at or after this time (epoch millis). */
  record FromTimestamp(long epochMillis) implements StartPosition {}
}
