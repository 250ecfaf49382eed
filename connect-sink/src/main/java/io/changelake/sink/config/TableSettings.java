package io.changelake.sink.config;

import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import java.util.List;
import java.util.Map;

/**
 * How one table is created and written: the {@code table.*} defaults with that table's {@code
 * table.<name>.*} overrides applied.
 *
 * @param name the table name the overrides were looked up by
 * @param autoCreate create the table from the first record when it does not exist
 * @param layout partition keys, buckets, merge engine, changelog producer, sequence fields and
 *     further Paimon options of created tables (empty sequence fields: the internal source-position
 *     columns, recommended)
 * @param primaryKeyFields primary key when the record key carries no schema, or when records carry
 *     no key at all; empty to use the key
 * @param keylessMode what records without a key do when no primary key is configured
 * @param deletePolicy what a delete event does
 * @param truncatePolicy what a truncate event does
 */
public record TableSettings(
    String name,
    boolean autoCreate,
    TableLayout layout,
    List<String> primaryKeyFields,
    KeylessMode keylessMode,
    DeletePolicy deletePolicy,
    TruncatePolicy truncatePolicy) {

  public TableSettings {
    primaryKeyFields = List.copyOf(primaryKeyFields);
  }

  /** Paimon options that make partial-update tables accept deletes, set by the user directly. */
  static final List<String> PAIMON_DELETE_OPTIONS =
      List.of(
          "partial-update.remove-record-on-delete",
          "partial-update.remove-record-on-sequence-group",
          "ignore-delete");

  /** True when deletes have a defined meaning for this table's merge engine. */
  public boolean deletesHandled() {
    if (layout.mergeEngine() != MergeEngine.PARTIAL_UPDATE
        || deletePolicy != DeletePolicy.DEFAULT) {
      return true;
    }
    Map<String, String> options = layout.options();
    return PAIMON_DELETE_OPTIONS.stream().anyMatch(options::containsKey)
        || options.keySet().stream().anyMatch(k -> k.endsWith(".sequence-group"));
  }
}
