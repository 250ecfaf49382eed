package io.changelake.configs.quickstart;

import io.changelake.configs.platform.PropertyTemplate;
import java.util.Map;
import org.apache.paimon.catalog.Identifier;

/** The three connectors of the quickstart chain, configured for the embedded platform. */
final class QuickstartConnectors {
  static final String DEBEZIUM = "quickstart-postgres-cdc";
  static final String SINK = "quickstart-lake-sink";
  static final String SOURCE = "quickstart-lake-changelog";
  // the sink names its table after the source table (route.table.format in sink.properties): the
  // name must stay DemoDatabase's customers
  static final Identifier LAKE_TABLE = Identifier.create("quickstart", "customers");
  static final String CHANGELOG_TOPIC = "lake." + LAKE_TABLE.getFullName();

  private QuickstartConnectors() {}

  // the configs are resources (src/main/resources/quickstart) so they read as connector files do
  static Map<String, String> debezium(int port) {
    return PropertyTemplate.load(
        "/quickstart/debezium.properties",
        Map.of(
            "port",
            String.valueOf(port),
            "database",
            DemoDatabase.DATABASE,
            "topic.prefix",
            DemoDatabase.TOPIC_PREFIX));
  }

  static Map<String, String> sink(String warehouse) {
    return PropertyTemplate.load(
        "/quickstart/sink.properties",
        Map.of(
            "topics",
            DemoDatabase.DEBEZIUM_TOPIC,
            "warehouse",
            warehouse,
            "lake.database",
            LAKE_TABLE.getDatabaseName()));
  }

  static Map<String, String> source(String warehouse) {
    return PropertyTemplate.load(
        "/quickstart/source.properties",
        Map.of("warehouse", warehouse, "tables", LAKE_TABLE.getFullName()));
  }
}
