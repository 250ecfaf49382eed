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
    Duration orphanFileOlderThan) {}
