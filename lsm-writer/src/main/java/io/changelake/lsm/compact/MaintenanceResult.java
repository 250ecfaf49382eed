package io.changelake.lsm.compact;

/**
 * The outcome of one maintenance round.
 *
 * @param earliestSnapshotBefore the oldest snapshot before expiry (0 when there was none)
 * @param earliestSnapshotAfter the oldest snapshot kept
 * @param orphanFilesDeleted files no snapshot referenced that were deleted
 */
public record MaintenanceResult(
    long earliestSnapshotBefore, long earliestSnapshotAfter, long orphanFilesDeleted) {
  /** How many snapshots expired. */
  public long snapshotsExpired() {
    return earliestSnapshotAfter - earliestSnapshotBefore;
  }
}
