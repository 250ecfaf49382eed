package io.changelake.configs.quickstart;

import java.util.LinkedHashMap;
import java.util.Map;

/** The three connectors of the quickstart chain, configured for the embedded platform. */
final class QuickstartConnectors {
  static final String DEBEZIUM = "quickstart-postgres-cdc";
  static final String SINK = "quickstart-lake-sink";
  static final String SOURCE = "quickstart-lake-changelog";
  static final String LAKE_DATABASE = "quickstart";
  static final String LAKE_TABLE = "customers";
  static final String CHANGELOG_TOPIC = "lake." + LAKE_DATABASE + "." + LAKE_TABLE;

  private QuickstartConnectors() {}

  static Map<String, String> debezium(int port) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    c.put("tasks.max", "1");
    c.put("plugin.name", "pgoutput");
    c.put("database.hostname", "127.0.0.1");
    c.put("database.port", String.valueOf(port));
    c.put("database.user", "postgres");
    c.put("database.dbname", DemoDatabase.DATABASE);
    c.put("topic.prefix", DemoDatabase.TOPIC_PREFIX);
    c.put("table.include.list", "public.customers");
    c.put("slot.name", "changelake_quickstart");
    c.put("publication.name", "changelake_quickstart");
    c.put("publication.autocreate.mode", "filtered");
    c.put("snapshot.mode", "initial");
    c.put("topic.creation.default.replication.factor", "1");
    c.put("topic.creation.default.partitions", "1");
    return c;
  }

  static Map<String, String> sink(String warehouse) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.changelake.sink.ChangelakeSinkConnector");
    c.put("tasks.max", "1");
    c.put("topics", DemoDatabase.DEBEZIUM_TOPIC);
    c.put("paimon.warehouse", warehouse);
    c.put("route.database", LAKE_DATABASE);
    c.put("route.table.format", "${source.table}");
    c.put("table.merge-engine", "deduplicate");
    c.put("table.buckets", "1");
    c.put("table.changelog-producer", "lookup");
    c.put("commit.interval.ms", "1000");
    // with changelog-producer=lookup the changelog is made by compaction: compact often here
    c.put("compaction.interval.ms", "2000");
    return c;
  }

  static Map<String, String> source(String warehouse) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.changelake.source.ChangelakeSourceConnector");
    c.put("tasks.max", "1");
    c.put("paimon.warehouse", warehouse);
    c.put("tables", LAKE_DATABASE + "." + LAKE_TABLE);
    c.put("topic.name.format", "lake.${database}.${table}");
    c.put("start.position", "full");
    c.put("record.format", "envelope");
    c.put("poll.interval.ms", "500");
    c.put("tables.discovery.interval.ms", "1000");
    c.put("topic.creation.default.replication.factor", "1");
    c.put("topic.creation.default.partitions", "1");
    return c;
  }
}
