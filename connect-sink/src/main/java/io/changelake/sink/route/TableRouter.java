package io.changelake.sink.route;

import io.changelake.sink.decode.SourceInfo;
import org.apache.paimon.catalog.Identifier;

/** Decides the table of a change event: regex rules first, then the name format. */
public final class TableRouter {
  private final String database;
  private final RegexRules rules;
  private final TableNameFormat format;
  private final boolean sanitize;

  public TableRouter(String database, RegexRules rules, TableNameFormat format, boolean sanitize) {
    this.database = database;
    this.rules = rules;
    this.format = format;
    this.sanitize = sanitize;
  }

  /**
   * The table for an event of {@code topic}: the topic as the record carries it, so an SMT such as
   * RegexRouter that renames topics also renames tables.
   */
  public Identifier route(String topic, SourceInfo source) {
    String name = rules.apply(topic).orElseGet(() -> format.format(topic, source));
    if (sanitize) {
      name = TableNames.sanitize(name);
    }
    if (name.isBlank()) {
      throw new IllegalArgumentException(
          "Topic '" + topic + "' routes to an empty table name; check route.table.format");
    }
    return Identifier.create(database, name);
  }
}
