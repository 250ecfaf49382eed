package io.changelake.sink.config;

import io.changelake.schema.config.ConfigEnum;

/** What a delete event does to a table. */
public enum DeletePolicy implements ConfigEnum {
  DEFAULT(
      "The merge engine's own behaviour: deduplicate and first-row remove the row; partial-update"
          + " tables reject deletes, so they need one of the other policies."),
  /**
   * Partial-update tables the sink creates for one topic use {@code
   * partial-update.remove-record-on-sequence-group}; older ones and those fed by several topics
   * {@code partial-update.remove-record-on-delete}.
   */
  REMOVE_ROW("Remove the whole row."),
  CLEAR_COLUMNS(
      "Partial-update tables only: set the columns of the topic the delete came from to NULL"
          + " (Paimon retracts that topic's sequence group); the other topics' columns and the row"
          + " stay, as in a full outer join of the source tables."),
  IGNORE("Keep the row; deletes are dropped (Paimon's ignore-delete).");

  private final String description;

  DeletePolicy(String description) {
    this.description = description;
  }

  @Override
  public String description() {
    return description;
  }
}
