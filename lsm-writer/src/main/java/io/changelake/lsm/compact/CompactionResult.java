package io.changelake.lsm.compact;

import java.util.OptionalLong;

/**
 * The outcome of one compaction round.
 *
 * @param commitIdentifier the compactor's commit identifier used
 * @param snapshotId the COMPACT snapshot created, empty when nothing needed compacting
 * @param bucketsCompacted partition-buckets the round looked at
 * @param bytesWritten bytes of the files the round wrote (compacted data and changelog files)
 * @param filesAfter the files per bucket once the round is committed
 */
public record CompactionResult(
    long commitIdentifier,
    OptionalLong snapshotId,
    int bucketsCompacted,
    long bytesWritten,
    BucketFiles filesAfter) {}
