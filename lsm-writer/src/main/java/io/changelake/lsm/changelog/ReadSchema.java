package io.changelake.lsm.changelog;

import io.changelake.lsm.table.LakeTables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryWriter;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

/**
 * The schema a changelog reader reads rows with, and the read built on it.
 *
 * <p>Paimon reads a file with the schema of the table it reads through, casting each value from the
 * file's schema to it. Casting a file written after a widening down to an older schema narrows its
 * values (a DECIMAL(14,4) read as DECIMAL(10,2) becomes null where it does not fit, an INT read of
 * a BIGINT wraps), so a plan must never be read with a schema older than its newest file: {@link
 * #covering} moves to the table's latest schema when a plan holds newer files. Since every schema
 * change Changelake makes widens, the latest schema holds the values of every older file.
 */
final class ReadSchema {
  private final FileStoreTable table;
  private final TableRead read;
  private final RowType rowType;
  private final InternalRow.FieldGetter[] fieldGetters;
  // copies are compact binary rows: one byte array per row instead of an object per value (a
  // generic row boxes every number and copies every string into objects of its own)
  private final FieldCopier[] copiers;
  private final BinaryRow copyBuffer;
  private final BinaryRowWriter copyWriter;
  private final InternalRow.FieldGetter[] keyGetters;

  ReadSchema(FileStoreTable table) {
    this.table = table;
    this.read = table.newReadBuilder().newRead();
    this.rowType = table.rowType();
    this.fieldGetters = new InternalRow.FieldGetter[rowType.getFieldCount()];
    this.copiers = new FieldCopier[fieldGetters.length];
    for (int i = 0; i < fieldGetters.length; i++) {
      fieldGetters[i] = InternalRow.createFieldGetter(rowType.getTypeAt(i), i);
      copiers[i] = copierOf(rowType.getFields().get(i), fieldGetters[i]);
    }
    this.copyBuffer = new BinaryRow(fieldGetters.length);
    this.copyWriter = new BinaryRowWriter(copyBuffer);
    List<String> keys = table.schema().primaryKeys();
    this.keyGetters = new InternalRow.FieldGetter[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      keyGetters[i] = fieldGetters[rowType.getFieldIndex(keys.get(i))];
    }
  }

  RowType rowType() {
    return rowType;
  }

  long schemaId() {
    return table.schema().id();
  }

  /** This schema when it is at least as new as every file of {@code splits}, else the latest. */
  ReadSchema covering(List<Split> splits) {
    long newest = -1;
    for (Split split : splits) {
      for (DataFileMeta file : files(split, table.fullName())) {
        newest = Math.max(newest, file.schemaId());
      }
    }
    return newest > schemaId() ? new ReadSchema(LakeTables.onLatestSchema(table)) : this;
  }

  RecordReader<InternalRow> open(Split split) throws java.io.IOException {
    return read.createReader(split);
  }

  /**
   * A copy of {@code row} (readers reuse their rows), as a compact binary row. A value that does
   * not fit its column (Paimon casts such values to null behind a non-null flag) fails with an
   * error naming the column.
   */
  InternalRow copy(InternalRow row, long snapshotId, Split split) {
    try {
      copyWriter.reset();
      copyWriter.writeRowKind(row.getRowKind());
      for (int i = 0; i < fieldGetters.length; i++) {
        if (row.isNullAt(i)) {
          copyWriter.setNullAt(i);
        } else {
          copiers[i].copy(row, copyWriter, i);
        }
      }
      copyWriter.complete();
      return copyBuffer.copy();
    } catch (RuntimeException e) {
      throw unreadable(row, snapshotId, split, e);
    }
  }

  /** Copies one non-null field of a row into a binary row being written. */
  @FunctionalInterface
  private interface FieldCopier {
    void copy(InternalRow from, BinaryRowWriter to, int pos);
  }

  /**
   * The copier of {@code field}: numbers are copied as they are, not boxed; any other value goes
   * through its getter, and one that does not fit the column (read as null behind a non-null flag)
   * fails.
   */
  private static FieldCopier copierOf(DataField field, InternalRow.FieldGetter getter) {
    return switch (field.type().getTypeRoot()) {
      case BOOLEAN -> (from, to, pos) -> to.writeBoolean(pos, from.getBoolean(pos));
      case TINYINT -> (from, to, pos) -> to.writeByte(pos, from.getByte(pos));
      case SMALLINT -> (from, to, pos) -> to.writeShort(pos, from.getShort(pos));
      case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE ->
          (from, to, pos) -> to.writeInt(pos, from.getInt(pos));
      case BIGINT -> (from, to, pos) -> to.writeLong(pos, from.getLong(pos));
      case FLOAT -> (from, to, pos) -> to.writeFloat(pos, from.getFloat(pos));
      case DOUBLE -> (from, to, pos) -> to.writeDouble(pos, from.getDouble(pos));
      default -> {
        BinaryWriter.ValueSetter setter = BinaryWriter.createValueSetter(field.type());
        yield (from, to, pos) -> {
          Object value = getter.getFieldOrNull(from);
          if (value == null) {
            throw new IllegalStateException(
                "column " + field.name() + " is not null but has no value");
          }
          setter.setValue(to, pos, value);
        };
      }
    };
  }

  boolean sameKey(InternalRow a, InternalRow b) {
    for (InternalRow.FieldGetter getter : keyGetters) {
      if (!Objects.equals(getter.getFieldOrNull(a), getter.getFieldOrNull(b))) {
        return false;
      }
    }
    return true;
  }

  private UnreadableSnapshotException unreadable(
      InternalRow row, long snapshotId, Split split, RuntimeException cause) {
    String table = this.table.fullName();
    DataField column = failingColumn(row);
    if (column == null) {
      return new UnreadableSnapshotException(
          "Table "
              + table
              + ": the rows of snapshot "
              + snapshotId
              + " cannot be read with the table's schema "
              + schemaId()
              + " ("
              + cause
              + "). The table's schema was probably changed incompatibly after they were written"
              + " (Changelake's sink only widens types); restore the types the files were written"
              + " with (schemas "
              + writtenWith(split, null).keySet()
              + "), or move the source's offset past snapshot "
              + snapshotId
              + " to skip it knowingly",
          table,
          snapshotId,
          null,
          cause);
    }
    Map<Long, String> written = writtenWith(split, column);
    return new UnreadableSnapshotException(
        "Table "
            + table
            + ", snapshot "
            + snapshotId
            + ": column '"
            + column.name()
            + "' holds a value that its type in the table's schema "
            + schemaId()
            + ", "
            + column.type().asSQLString()
            + ", cannot hold; the value was written as "
            + (written.isEmpty() ? "another type" : String.join(" or ", written.values()))
            + " (schema "
            + written.keySet()
            + "). The column was narrowed or changed incompatibly after the value was written"
            + " (Changelake's sink only widens types). To go on, restore a type that holds the"
            + " values (e.g. ALTER TABLE "
            + table
            + " ALTER COLUMN "
            + column.name()
            + " TYPE "
            + (written.isEmpty() ? "<the old type>" : written.values().iterator().next())
            + " in Flink or Spark SQL) and restart the source task, or move the source's offset"
            + " for this table past snapshot "
            + snapshotId
            + " to skip its changes knowingly",
        table,
        snapshotId,
        column.name(),
        cause);
  }

  /** The first column whose value cannot be read, or null. */
  private DataField failingColumn(InternalRow row) {
    for (int i = 0; i < fieldGetters.length; i++) {
      try {
        if (!row.isNullAt(i) && fieldGetters[i].getFieldOrNull(row) == null) {
          return rowType.getFields().get(i);
        }
      } catch (RuntimeException e) {
        return rowType.getFields().get(i);
      }
    }
    return null;
  }

  /** The schemas the split's files were written with, and the column's type in each. */
  private Map<Long, String> writtenWith(Split split, DataField column) {
    Map<Long, String> types = new LinkedHashMap<>();
    for (DataFileMeta file : files(split, table.fullName())) {
      long id = file.schemaId();
      if (id == schemaId() || types.containsKey(id)) {
        continue;
      }
      TableSchema schema = table.schemaManager().schema(id);
      String type = "";
      if (column != null) {
        type =
            schema.fields().stream()
                .filter(field -> field.id() == column.id())
                .map(field -> field.type().asSQLString())
                .findFirst()
                .orElse("(absent)");
      }
      types.put(id, type);
    }
    return types;
  }

  private static List<DataFileMeta> files(Split split, String table) {
    return SplitPlace.of(split, table).files();
  }
}
