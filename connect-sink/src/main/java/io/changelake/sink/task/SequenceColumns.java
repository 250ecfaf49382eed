package io.changelake.sink.task;

import io.changelake.lsm.table.InternalColumns;
import java.util.List;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * The internal columns of auto-created tables. Sequence columns: the change's source position and
 * its Kafka offset as tie-breaker (Paimon compares several sequence fields in order). With them the
 * newest version of a key wins however late a writer commits, so rebalances, retries and zombie
 * tasks cannot bring back an older version.
 *
 * <p>The columns are NOT NULL: when a partial-update table with {@code
 * partial-update.remove-record-on-delete} merges an update and a delete of one key (in the write
 * buffer, or in a compaction), Paimon's result keeps only the NOT NULL columns of the delete. With
 * nullable sequence columns that delete reaches older files without a sequence, sorts before every
 * version of the key and is overridden by them: the row stays, with its old values.
 */
public final class SequenceColumns {
  public static final String SOURCE_POSITION = InternalColumns.PREFIX + "source_position";
  public static final String KAFKA_OFFSET = InternalColumns.PREFIX + "kafka_offset";
  public static final List<String> NAMES = List.of(SOURCE_POSITION, KAFKA_OFFSET);

  /** The operation ({@code c}, {@code r}, {@code u}, {@code d}) of a row of an append table. */
  public static final String OPERATION = InternalColumns.PREFIX + "op";

  private SequenceColumns() {}

  /** {@code rowType} with the two columns appended, NOT NULL. */
  static RowType appendTo(RowType rowType) {
    List<DataField> fields = new java.util.ArrayList<>(rowType.getFields());
    int nextId = fields.stream().mapToInt(DataField::id).max().orElse(-1) + 1;
    fields.add(new DataField(nextId, SOURCE_POSITION, DataTypes.BIGINT().notNull()));
    fields.add(new DataField(nextId + 1, KAFKA_OFFSET, DataTypes.BIGINT().notNull()));
    return new RowType(fields);
  }

  /**
   * {@code rowType} with the columns of an append-only change table appended, NOT NULL: the
   * operation, then the two sequence columns (there they order nothing, they say where each change
   * came from).
   */
  static RowType appendChangeColumnsTo(RowType rowType) {
    List<DataField> fields = new java.util.ArrayList<>(rowType.getFields());
    int nextId = fields.stream().mapToInt(DataField::id).max().orElse(-1) + 1;
    fields.add(new DataField(nextId, OPERATION, DataTypes.STRING().notNull()));
    return appendTo(new RowType(fields));
  }

  /** Position of the operation column in {@code rowType}, or -1 when it is not a change table. */
  static int operationIndexIn(RowType rowType) {
    return rowType.getFieldIndex(OPERATION);
  }

  /** Positions of the two columns in {@code rowType}, or null when the table lacks them. */
  static int[] indexesIn(RowType rowType) {
    int position = rowType.getFieldIndex(SOURCE_POSITION);
    int offset = rowType.getFieldIndex(KAFKA_OFFSET);
    return position < 0 || offset < 0 ? null : new int[] {position, offset};
  }
}
