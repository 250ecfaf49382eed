package io.changelake.lsm.write;

import io.changelake.lsm.fault.BrokenWriterException;
import io.changelake.lsm.fault.LakeDataException;
import io.changelake.lsm.fault.LakeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.ProjectedRow;

/**
 * Finds the committed row of one primary key: a batch read of the table's latest snapshot filtered
 * by the key.
 *
 * <p>Cost per lookup: one scan plan (the latest snapshot's manifests; Paimon prunes them to the
 * key's partition and bucket, fixed-bucket tables only) and a merge read of that one bucket's files
 * whose key range contains the key. On a bucket with many uncompacted level-0 files (ingest writers
 * never compact) this reads every one of them that overlaps the key. Fine for the occasional record
 * that needs a stored value; a table where most records do would be better served by a local lookup
 * cache, which this is not.
 *
 * <p>It sees committed data only; {@link TableWriter#lookup} adds the writer's own uncommitted
 * rows.
 */
public final class KeyLookup {
  private final FileStoreTable table;
  private final RowType rowType;
  private final KeyProjection keys;
  private final InternalRow.FieldGetter[] keyGetters;
  private final int[] keyIndexes;

  public KeyLookup(FileStoreTable table) {
    if (table.primaryKeys().isEmpty()) {
      throw new LakeDataException(
          "Table " + table.fullName() + " has no primary key, so rows cannot be looked up by key",
          table.fullName(),
          null,
          null);
    }
    this.table = table;
    this.rowType = table.rowType();
    this.keys = new KeyProjection(table);
    this.keyIndexes = keys.indexes();
    this.keyGetters = new InternalRow.FieldGetter[keyIndexes.length];
    for (int i = 0; i < keyIndexes.length; i++) {
      keyGetters[i] =
          InternalRow.createFieldGetter(rowType.getTypeAt(keyIndexes[i]), keyIndexes[i]);
    }
  }

  /**
   * The committed row whose primary key equals that of {@code keyRow} (a row of the table's row
   * type; only its primary-key fields are used), or empty when the table holds no such row.
   */
  public Optional<InternalRow> find(InternalRow keyRow) {
    BinaryRow key = keys.key(keyRow);
    PredicateBuilder builder = new PredicateBuilder(rowType);
    List<Predicate> equalities = new ArrayList<>(keyIndexes.length);
    for (int i = 0; i < keyIndexes.length; i++) {
      equalities.add(builder.equal(keyIndexes[i], keyGetters[i].getFieldOrNull(keyRow)));
    }
    ReadBuilder read = table.newReadBuilder().withFilter(PredicateBuilder.and(equalities));
    InternalRowSerializer serializer = new InternalRowSerializer(rowType);
    InternalRow[] found = new InternalRow[1];
    try {
      TableRows.forEach(
          read,
          row -> {
            // the filter prunes files, it does not drop every other row of a file
            if (keys.key(row).equals(key)) {
              found[0] = serializer.copy(row);
            }
          });
    } catch (Exception e) {
      throw LakeException.wrap(
          "Looking up a key in table " + table.fullName() + " failed: " + e.getMessage(),
          e,
          BrokenWriterException::new);
    }
    return Optional.ofNullable(found[0]);
  }

  /** The primary key of {@code row}, copied (safe to keep), equal for rows with equal keys. */
  BinaryRow key(InternalRow row) {
    return keys.key(row);
  }

  /** The primary key of rows of one table, as comparable binary rows. */
  static final class KeyProjection {
    private final int[] indexes;
    private final ProjectedRow projected;
    private final InternalRowSerializer serializer;

    KeyProjection(FileStoreTable table) {
      RowType rowType = table.rowType();
      List<String> primaryKeys = table.primaryKeys();
      indexes = new int[primaryKeys.size()];
      for (int i = 0; i < indexes.length; i++) {
        indexes[i] = rowType.getFieldIndex(primaryKeys.get(i));
      }
      projected = ProjectedRow.from(indexes);
      serializer = new InternalRowSerializer(rowType.project(indexes));
    }

    int[] indexes() {
      return indexes.clone();
    }

    /** The key of {@code row}, copied (safe to keep). */
    BinaryRow key(InternalRow row) {
      BinaryRow key = serializer.toBinaryRow(projected.replaceRow(row)).copy();
      // the row kind sits in the binary header: an update and an insert share the key
      key.setRowKind(RowKind.INSERT);
      return key;
    }
  }
}
