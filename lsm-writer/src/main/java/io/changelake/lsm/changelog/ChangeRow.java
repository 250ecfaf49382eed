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
 * @param position the position just after this change (checkpoint it once the change is durable)
 */
public record ChangeRow(
    RowKind kind, InternalRow before, InternalRow after, ReaderPosition position) {}
