package io.changelake.sink.task;

import io.changelake.lsm.table.MergeEngine;
import io.changelake.schema.ConvertedRow;
import io.changelake.schema.RowConverter;
import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import io.changelake.sink.decode.SourcePosition;
import java.util.BitSet;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Turns a row change into the Paimon row written to its table: converted by schema-evolution's
 * {@link RowConverter}, with the sequence columns set, and with values the source did not send
 * (Debezium's placeholder for unchanged TOASTed columns) handled so they never overwrite what the
 * table holds.
 */
final class RowBuilder {
  private RowBuilder() {}

  /**
   * @param engine the table's merge engine; ignored for append-only change tables
   * @param groups the table's partial-update sequence groups: the row sets its topic's group
   * @param converterFor the converter for a record schema (evolving the table first if needed)
   * @param storedRow the row the table holds under the key of a converted row (exact also for rows
   *     the task wrote but did not commit yet), asked only when a deduplicate table lacks a value
   */
  static GenericRow build(
      RowChange event,
      MergeEngine engine,
      SequenceGroups.Layout groups,
      String tableName,
      SourcePosition position,
      Function<Schema, RowConverter> converterFor,
      Function<InternalRow, Optional<InternalRow>> storedRow) {
    Struct source = event.row();
    if (source == null) {
      // a delete whose before image is empty: the key is all that identifies the row
      source = event.key();
    }
    if (source == null) {
      throw new RecordException(
          "A delete without key and without before image cannot say which row it removes; give"
              + " the source table a primary key or REPLICA IDENTITY FULL",
          null,
          null);
    }
    RowConverter converter = converterFor.apply(source.schema());
    RowType rowType = converter.target();
    int operation = SequenceColumns.operationIndexIn(rowType);
    // an append-only change table gets every change as a new row, the operation in a column
    boolean appendOnly = operation >= 0;
    RowKind kind = appendOnly ? RowKind.INSERT : kindOf(event.op());
    ConvertedRow converted = converter.convert(source, kind);
    GenericRow row = converted.row();
    SequenceGroups.Columns group =
        appendOnly ? null : SequenceGroups.columnsOf(groups, rowType, event.origin().topic());
    if (!event.isDelete() && !converted.unavailable().isEmpty()) {
      keepStoredValues(
          event,
          appendOnly ? null : engine,
          group,
          tableName,
          converter,
          converted,
          appendOnly ? key -> Optional.empty() : storedRow);
    }
    if (appendOnly) {
      row.setField(operation, BinaryString.fromString(event.op().code()));
    }
    int[] sequence = SequenceColumns.indexesIn(rowType);
    if (sequence != null) {
      row.setField(sequence[0], position.value());
      row.setField(sequence[1], event.origin().offset());
    }
    if (group != null) {
      // the topic's group is taken whole (NULLs included) when this is its newest version
      row.setField(group.position(), position.value());
      row.setField(group.offset(), event.origin().offset());
    }
    return row;
  }

  static RowKind kindOf(DebeziumOp op) {
    return switch (op) {
      case CREATE, READ -> RowKind.INSERT;
      case UPDATE -> RowKind.UPDATE_AFTER;
      case DELETE -> RowKind.DELETE;
      case TRUNCATE -> throw new IllegalArgumentException("A truncate is not a row change");
    };
  }

  /**
   * Unavailable columns are null in the converted row. Partial-update tables without sequence
   * groups treat null as "no value", so the stored value stays. Other tables would store the null:
   * take the value from the before image when the source sent one (REPLICA IDENTITY FULL);
   * deduplicate tables, and partial-update tables whose group of this topic the stored row holds,
   * then take it from the row they hold under the key; else refuse the record. (Aggregation and
   * first-row rows are not the source's row, so their stored values cannot stand in.)
   */
  private static void keepStoredValues(
      RowChange event,
      MergeEngine engine,
      SequenceGroups.Columns group,
      String tableName,
      RowConverter converter,
      ConvertedRow converted,
      Function<InternalRow, Optional<InternalRow>> storedRow) {
    if (engine == MergeEngine.PARTIAL_UPDATE && group == null) {
      return;
    }
    BitSet missing = (BitSet) converted.unavailable().clone();
    if (event.before() != null && event.before().schema().equals(converter.schema())) {
      ConvertedRow before = converter.convert(event.before(), RowKind.UPDATE_BEFORE);
      for (int i = missing.nextSetBit(0); i >= 0; i = missing.nextSetBit(i + 1)) {
        if (!before.unavailable().get(i) && !before.absent().get(i)) {
          converted.row().setField(i, before.row().getField(i));
          missing.clear(i);
        }
      }
    }
    if (!missing.isEmpty()
        && (engine == MergeEngine.DEDUPLICATE || engine == MergeEngine.PARTIAL_UPDATE)) {
      Optional<InternalRow> stored = storedRow.apply(converted.row());
      // a wide table's row may hold other topics' columns only: this topic's are then unknown
      if (stored.isPresent()
          && (group == null
              || (group.position() < stored.get().getFieldCount()
                  && !stored.get().isNullAt(group.position())))) {
        RowType rowType = converter.target();
        for (int i = missing.nextSetBit(0); i >= 0; i = missing.nextSetBit(i + 1)) {
          converted
              .row()
              .setField(
                  i,
                  InternalRow.createFieldGetter(rowType.getTypeAt(i), i)
                      .getFieldOrNull(stored.get()));
        }
        missing.clear();
      }
    }
    if (!missing.isEmpty()) {
      String column = converter.target().getFieldNames().get(missing.nextSetBit(0));
      String why =
          engine == null
              ? ", and table "
                  + tableName
                  + " is an append-only change table (its records carry no key) with no stored"
                  + " row to take it from"
              : ", the table holds no row with its key to take the value from, and a "
                  + engine.paimonName()
                  + " table would overwrite the stored value with it";
      throw new RecordException(
          "The source did not send the value of column '"
              + column
              + "' (Debezium's unavailable-value placeholder for an unchanged TOASTed column)"
              + why
              + ". Set REPLICA IDENTITY FULL on the source table (the before image then carries"
              + " the value)",
          column,
          null);
    }
  }
}
