package io.changelake.lsm.table;

import java.util.List;
import java.util.Map;

/**
 * How a primary-key table is partitioned, bucketed and merged: the part of a table's definition
 * that the sink's {@code table.*} settings configure and a {@link TableSpec} creates. One record
 * for both, so a layout setting added here reaches the created table without a second copy.
 *
 * @param partitionKeys partition columns, possibly empty
 * @param buckets fixed bucket count ({@code -1}, Paimon's dynamic bucket mode, can be created but
 *     {@link io.changelake.lsm.write.WriterPool} writes fixed-bucket tables only)
 * @param mergeEngine how rows of one key merge
 * @param changelogProducer how the table produces its changelog ({@code lookup}: produced by the
 *     table's compactor, so changes reach the changelog one compaction round after their commit)
 * @param sequenceFields columns ordering the versions of one key, compared in order. Empty in a
 *     {@link TableSpec}: Paimon's writer-local sequence numbers; empty in the sink's table
 *     settings: the sink's own source-position columns (recommended)
 * @param options any other Paimon table option, passed as is (wins over the fields above)
 */
public record TableLayout(
    List<String> partitionKeys,
    int buckets,
    MergeEngine mergeEngine,
    ChangelogProducer changelogProducer,
    List<String> sequenceFields,
    Map<String, String> options) {

  public TableLayout {
    partitionKeys = List.copyOf(partitionKeys);
    sequenceFields = List.copyOf(sequenceFields);
    options = Map.copyOf(options);
  }

  /** This layout with other sequence fields and options, e.g. those a created table adds. */
  public TableLayout with(List<String> sequenceFields, Map<String, String> options) {
    return new TableLayout(
        partitionKeys, buckets, mergeEngine, changelogProducer, sequenceFields, options);
  }
}
