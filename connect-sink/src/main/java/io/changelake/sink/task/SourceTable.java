package io.changelake.sink.task;

import java.util.Optional;

/**
 * Where rows of a table came from, as far as a record tells: its topic (after SMTs) and, when it
 * has a source block, the source table ({@code db.schema.table}). Flattened rows usually carry no
 * source block while the truncate envelope of the same table does, so a missing name matches any.
 * Rows flattened with {@code add.fields=table} name only the table ({@code ..t}): each part is
 * compared only where both records know it, else a truncate let through unflattened would never
 * match its own table's rows.
 */
record SourceTable(String topic, Optional<String> table) {

  boolean sameAs(SourceTable other) {
    if (!topic.equals(other.topic)) {
      return false;
    }
    if (table.isEmpty() || other.table.isEmpty()) {
      return true;
    }
    // at most three parts: db and schema names hold no dot, a table name may
    String[] mine = table.get().split("\\.", 3);
    String[] theirs = other.table.get().split("\\.", 3);
    if (mine.length != theirs.length) {
      return table.equals(other.table);
    }
    for (int i = 0; i < mine.length; i++) {
      if (!mine[i].isEmpty() && !theirs[i].isEmpty() && !mine[i].equals(theirs[i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return table.orElse("topic " + topic);
  }
}
