package io.changelake.e2e.connect;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Configs for the Changelake sink and source as a user would deploy them, with settings that keep
 * tests quick: short commit and compaction intervals and a small writer budget.
 */
public final class ChangelakeConnectors {
  public static final String SINK_CLASS = "io.changelake.sink.ChangelakeSinkConnector";
  public static final String SOURCE_CLASS = "io.changelake.source.ChangelakeSourceConnector";

  private ChangelakeConnectors() {}

  /**
   * A sink reading {@code topicsRegex} into tables of Paimon database {@code database} named after
   * the source table (Debezium's {@code source.table}).
   */
  public static Map<String, String> sink(Path warehouse, String topicsRegex, String database) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", SINK_CLASS);
    c.put("tasks.max", "1");
    c.put("topics.regex", topicsRegex);
    c.put("paimon.warehouse", warehouse.toUri().toString());
    c.put("route.database", database);
    c.put("route.table.format", "${source.table}");
    c.put("commit.interval.ms", "1000");
    c.put("compaction.interval.ms", "5000");
    c.put("writer.memory.bytes", String.valueOf(32L * 1024 * 1024));
    c.put("table.buckets", "2");
    return c;
  }

  /**
   * Routes each Debezium topic {@code <prefix>.<schema>.<table>} to table {@code <table>} by the
   * topic alone, as the sink's default ({@code ${topic}}) does, instead of by the records' source
   * blocks: a partition assigned anew to a task then reads on from where its table stands.
   */
  public static Map<String, String> byTopicAlone(Map<String, String> sink) {
    Map<String, String> routed = new HashMap<>(sink);
    routed.remove("route.table.format");
    routed.put("route.regex.rules", "[^.]+\\.[^.]+\\.(.*)=>$1");
    return routed;
  }

  /** Adds a dead-letter queue with the failure reasons in headers. */
  public static Map<String, String> withDeadLetterQueue(Map<String, String> config, String topic) {
    Map<String, String> c = new HashMap<>(config);
    c.put("errors.tolerance", "all");
    c.put("errors.deadletterqueue.topic.name", topic);
    c.put("errors.deadletterqueue.topic.replication.factor", "1");
    c.put("errors.deadletterqueue.context.headers.enable", "true");
    c.put("errors.log.enable", "true");
    return c;
  }

  /**
   * A source publishing {@code tables} ({@code <database>.<table>}, comma separated) to topics
   * named {@code <topicPrefix>.<database>.<table>}, full state first, then changes.
   */
  public static Map<String, String> source(Path warehouse, String tables, String topicPrefix) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", SOURCE_CLASS);
    c.put("tasks.max", "1");
    c.put("paimon.warehouse", warehouse.toUri().toString());
    c.put("tables", tables);
    c.put("topic.name.format", topicPrefix + ".${database}.${table}");
    c.put("start.position", "full");
    c.put("poll.interval.ms", "500");
    c.put("topic.creation.default.replication.factor", "1");
    c.put("topic.creation.default.partitions", "1");
    return c;
  }
}
