package io.changelake.lsm.changelog;

/**
 * The rows of one snapshot cannot be read with the table's schema: a value no longer fits the type
 * its column has now (the table's schema was narrowed or changed incompatibly after the value was
 * written). Reading the snapshot again fails the same way; the message names the table, the
 * snapshot, the column and the ways out. Other tables are not affected.
 */
public final class UnreadableSnapshotException extends RuntimeException {
  private final String table;
  private final long snapshotId;
  private final String column;

  UnreadableSnapshotException(
      String message, String table, long snapshotId, String column, Throwable cause) {
    super(message, cause);
    this.table = table;
    this.snapshotId = snapshotId;
    this.column = column;
  }

  /** The table, as {@code database.table}. */
  public String table() {
    return table;
  }

  /** The snapshot whose rows cannot be read. */
  public long snapshotId() {
    return snapshotId;
  }

  /** The column holding the value, or null when it could not be told. */
  public String column() {
    return column;
  }
}
