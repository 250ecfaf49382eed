package io.changelake.sink.route;

import io.changelake.sink.decode.SourceInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.catalog.Identifier;

/**
 * Decides the table of a change event: regex rules first, then the name format.
 *
 * <p>A task routes every record, nearly always to a table it routed to before: routes are
 * remembered by topic and source names, so the rules, the format and sanitizing run once per
 * distinct route instead of once per record. Not for concurrent use (one per task).
 */
public final class TableRouter {
  // bounds the memory of the remembered routes when topics or source names keep changing
  static final int MAX_REMEMBERED = 10_000;

  private record RouteKey(
      String topic, Optional<String> db, Optional<String> schema, Optional<String> table) {}

  private final Map<RouteKey, Identifier> routes = new HashMap<>();
  // the route of the record before: consecutive records mostly share it, and comparing the names
  // costs less than building and hashing a key per record
  private RouteKey lastKey;
  private Identifier lastRoute;
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
    if (lastKey != null
        && lastKey.topic().equals(topic)
        && lastKey.table().equals(source.table())
        && lastKey.schema().equals(source.schema())
        && lastKey.db().equals(source.db())) {
      return lastRoute;
    }
    RouteKey key = new RouteKey(topic, source.db(), source.schema(), source.table());
    Identifier routed = routes.get(key);
    if (routed == null) {
      routed = compute(topic, source);
      if (routes.size() >= MAX_REMEMBERED) {
        routes.clear();
      }
      routes.put(key, routed);
    }
    lastKey = key;
    lastRoute = routed;
    return routed;
  }

  /**
   * True when the routing of {@code topic} may put several source tables into one table: a rule
   * naming a fixed table matches it, or no rule matches and the name format has no placeholder.
   * (Rules and formats with placeholders can combine tables too; the task also watches what it
   * writes.)
   */
  public boolean mayCombineSources(String topic) {
    if (rules.routesToFixedName(topic)) {
      return true;
    }
    return rules.apply(topic).isEmpty() && format.isStatic();
  }

  /**
   * The one table every record of {@code topic} goes to, when the topic alone names it (a regex
   * rule matches the topic, or the name format has no placeholder of the source block); empty when
   * the records' source blocks decide, or the name is empty.
   */
  public Optional<Identifier> tableOfTopic(String topic) {
    if (rules.apply(topic).isEmpty() && !format.usesTopicAlone()) {
      return Optional.empty();
    }
    try {
      return Optional.of(compute(topic, SourceInfo.none(0)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private Identifier compute(String topic, SourceInfo source) {
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
