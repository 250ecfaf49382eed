package io.changelake.lsm.changelog;

/**
 * A checkpoint of a changelog reader: the next change to read is the {@code rowOffset}-th change of
 * snapshot {@code snapshotId} (within this reader's buckets). The full-state phase is snapshot
 * {@code snapshotId} with {@code fullState = true}.
 */
public record ReaderPosition(long snapshotId, long rowOffset, boolean fullState) {}
