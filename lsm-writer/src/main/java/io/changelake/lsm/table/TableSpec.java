package io.changelake.lsm.table;

import java.util.List;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.RowType;

/**
 * Everything needed to create a primary-key table, or an append-only table when {@code primaryKeys}
 * is empty (see {@link LakeTables#toSchema}).
 *
 * @param identifier database and table name
 * @param rowType columns in order, with their nullability
 * @param primaryKeys primary key columns (must include the partition keys); empty for an
 *     append-only table
 * @param layout partitioning, buckets, merge engine, changelog producer, sequence fields and
 *     further options (an append-only table uses its partitioning and options only)
 */
public record TableSpec(
    Identifier identifier, RowType rowType, List<String> primaryKeys, TableLayout layout) {

  public TableSpec {
    primaryKeys = List.copyOf(primaryKeys);
  }
}
