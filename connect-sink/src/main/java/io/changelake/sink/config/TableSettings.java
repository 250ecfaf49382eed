package io.changelake.sink.config;

import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.MergeEngine;
import java.util.List;
import java.util.Map;

/**
 * How one table is created and written: the {@code table.*} defaults with that table's {@code
 * table.<name>.*} overrides applied.
 *
 * @param name the table name the overrides were looked up by
 * @param autoCreate create the table from the first record when it does not exist
 * @param mergeEngine Paimon merge engine of created tables
 * @param buckets fixed bucket count of created tables
 * @param partitionKeys partition columns of created tables
 * @param primaryKeyFields primary key when the record key carries no schema, or when records carry
 *     no key at all; empty to use the key
 * @param keylessMode what records without a key do when no primary key is configured
 * @param sequenceFields user columns ordering versions of a key; empty for the internal
 *     source-position columns (recommended)
 * @param changelogProducer changelog producer of created tables
 * @param deletePolicy what a delete event does
 * @param truncatePolicy what a truncate event does
 * @param options further Paimon table options, passed as they are
 */
public record TableSettings(
    String name,
    boolean autoCreate,
    MergeEngine mergeEngine,
    int buckets,
    List<String> partitionKeys,
    List<String> primaryKeyFields,
    KeylessMode keylessMode,
    List<String> sequenceFields,
    ChangelogProducer changelogProducer,
    DeletePolicy deletePolicy,
    TruncatePolicy truncatePolicy,
    Map<String, String> options) {

  public TableSettings {
    partitionKeys = List.copyOf(partitionKeys);
    primaryKeyFields = List.copyOf(primaryKeyFields);
    sequenceFields = List.copyOf(sequenceFields);
    options = Map.copyOf(options);
  }

  /** Paimon options that make partial-update tables accept deletes, set by the user directly. */
  static final List<String> PAIMON_DELETE_OPTIONS =
      List.of(
          "partial-update.remove-record-on-delete",
          "partial-update.remove-record-on-sequence-group",
          "ignore-delete");

  /** True when deletes have a defined meaning for this table's merge engine. */
  public boolean deletesHandled() {
    if (mergeEngine != MergeEngine.PARTIAL_UPDATE || deletePolicy != DeletePolicy.DEFAULT) {
      return true;
    }
    return PAIMON_DELETE_OPTIONS.stream().anyMatch(options::containsKey)
        || options.keySet().stream().anyMatch(k -> k.endsWith(".sequence-group"));
  }
}
