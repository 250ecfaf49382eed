package io.changelake.lsm.table;

import java.util.List;
import java.util.Map;
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
 * @param partitionKeys partition columns, possibly empty
 * @param buckets fixed bucket count ({@code -1}, Paimon's dynamic bucket mode, can be created but
 *     {@link io.changelake.lsm.write.WriterPool} writes fixed-bucket tables only)
 * @param mergeEngine how rows of one key merge
 * @param changelogProducer how the table produces its changelog ({@code lookup}: produced by the
 *     table's compactor, so changes reach the changelog one compaction round after their commit)
 * @param sequenceFields columns ordering the versions of one key, compared in order; empty for
 *     Paimon's writer-local sequence numbers
 * @param options any other Paimon table option, passed as is (wins over the fields above)
 */
public record TableSpec(
    Identifier identifier,
    RowType rowType,
    List<String> primaryKeys,
    List<String> partitionKeys,
    int buckets,
    MergeEngine mergeEngine,
    ChangelogProducer changelogProducer,
    List<String> sequenceFields,
    Map<String, String> options) {

  public TableSpec {
    primaryKeys = List.copyOf(primaryKeys);
    partitionKeys = List.copyOf(partitionKeys);
    sequenceFields = List.copyOf(sequenceFields);
    options = Map.copyOf(options);
  }
}
