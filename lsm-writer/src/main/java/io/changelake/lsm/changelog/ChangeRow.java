package io.changelake.lsm.changelog;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

/**
 * One change. For an update the reader pairs {@code -U} with its {@code +U}: {@code before} holds
 * the old row and {@code after} the new; for inserts {@code before} is null, for deletes {@code
 * after} is null.
 *
 * @param kind the kind of change ({@code +I}, {@code +U} for a paired or lone update, {@code -U}
 *     for a lone retraction, {@code -D})
 * @param before the old row, when known
 * @param after the new row, when there is one
 * @param position the position just after this change within its {@code bucket} (checkpoint it once
 *     the change is durable)
 * @param bucket the bucket the change belongs to, or {@link ChangelogReader#ALL_BUCKETS} when the
 *     reader counts positions over all buckets together (a reader of every bucket of a table whose
 *     buckets are not fixed)
 */
public record ChangeRow(
    RowKind kind, InternalRow before, InternalRow after, ReaderPosition position, int bucket) {

  /** A change of a reader that counts positions over all buckets together. */
  public ChangeRow(RowKind kind, InternalRow before, InternalRow after, ReaderPosition position) {
    this(kind, before, after, position, ChangelogReader.ALL_BUCKETS);
  }
}
