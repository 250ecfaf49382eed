package io.changelake.lsm.changelog;

/**
 * Keeps a truncate in order with the changes around it when a table's buckets are read by several
 * readers (several tasks) that publish into one stream. The reader owning {@link
 * ChangelogReader#TRUNCATE_BUCKET} announces the truncate once every other bucket's changes before
 * it are durable downstream; the other readers read the rows after the truncate only once the
 * truncate is durable. A reader that cannot go on yet returns no batch and asks again on its next
 * poll; it reads nothing meanwhile, so nothing is skipped.
 */
public interface TruncateBarrier {
  /** A reader that never waits: it reads every bucket of the table, or order does not matter. */
  TruncateBarrier NONE =
      new TruncateBarrier() {
        @Override
        public boolean mayAnnounce(long snapshotId) {
          return true;
        }

        @Override
        public boolean mayFollow(long snapshotId) {
          return true;
        }
      };

  /**
   * True when the truncate of snapshot {@code snapshotId} may be published: every change of the
   * other readers' buckets before that snapshot is durable.
   */
  boolean mayAnnounce(long snapshotId);

  /**
   * True when the rows after the truncate of snapshot {@code snapshotId} may be read: the truncate
   * itself is durable.
   */
  boolean mayFollow(long snapshotId);
}
