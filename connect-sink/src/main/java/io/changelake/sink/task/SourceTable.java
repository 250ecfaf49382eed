package io.changelake.sink.task;

import java.util.Optional;

/**
 * Where rows of a table came from, as far as a record tells: its topic (after SMTs) and, when it
 * has a source block, the source table ({@code db.schema.table}). Flattened rows usually carry no
 * source block while the truncate envelope of the same table does, so a missing name matches any.
 */
record SourceTable(String topic, Optional<String> table) {

  boolean sameAs(SourceTable other) {
    if (!topic.equals(other.topic)) {
      return false;
    }
    return table.isEmpty() || other.table.isEmpty() || table.equals(other.table);
  }

  @Override
  public String toString() {
    return table.orElse("topic " + topic);
  }
}
