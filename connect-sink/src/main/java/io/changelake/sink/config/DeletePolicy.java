package io.changelake.sink.config;

import java.util.Locale;

/** What a delete event does to a table. */
public enum DeletePolicy {
  /**
   * The merge engine's own behaviour: deduplicate and first-row remove the row; partial-update
   * tables reject deletes, so they need one of the other policies.
   */
  DEFAULT,
  /**
   * Remove the whole row (partial-update tables the sink creates for one topic: {@code
   * partial-update.remove-record-on-sequence-group}; older ones and those fed by several topics:
   * {@code partial-update.remove-record-on-delete}).
   */
  REMOVE_ROW,
  /**
   * Partial-update tables only: set the columns of the topic the delete came from to NULL (Paimon
   * retracts that topic's sequence group); the other topics' columns and the row stay, as in a full
   * outer join of the source tables.
   */
  CLEAR_COLUMNS,
  /** Keep the row; deletes are dropped (Paimon's {@code ignore-delete}). */
  IGNORE;

  /** The name used in configs, e.g. {@code remove-row}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static DeletePolicy fromConfigName(String value) {
    return DeletePolicy.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
  }
}
