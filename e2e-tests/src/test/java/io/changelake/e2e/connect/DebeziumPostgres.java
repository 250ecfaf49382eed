package io.changelake.e2e.connect;

import io.changelake.testkit.postgres.PostgresServer;
import java.util.HashMap;
import java.util.Map;

/**
 * Configs for Debezium's PostgreSQL connector against a {@link PostgresServer}, as a user would
 * write them: pgoutput, one slot and publication per connector, topics created by Connect (the test
 * broker cannot auto-create topics).
 */
public final class DebeziumPostgres {
  public static final String CONNECTOR_CLASS = "io.debezium.connector.postgresql.PostgresConnector";

  private DebeziumPostgres() {}

  /**
   * A config capturing {@code tables} (Debezium's {@code table.include.list}, e.g. {@code
   * public.orders}) of {@code database} into topics {@code <topicPrefix>.<schema>.<table>}. The
   * slot and publication are named after the prefix, so give every connector its own prefix.
   */
  public static Map<String, String> config(
      PostgresServer pg, String database, String topicPrefix, String tables) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", CONNECTOR_CLASS);
    c.put("tasks.max", "1");
    c.put("database.hostname", pg.host());
    c.put("database.port", String.valueOf(pg.port()));
    c.put("database.user", PostgresServer.USER);
    c.put("database.password", PostgresServer.PASSWORD);
    c.put("database.dbname", database);
    c.put("topic.prefix", topicPrefix);
    c.put("plugin.name", "pgoutput");
    c.put("slot.name", slotName(topicPrefix));
    c.put("publication.name", "pub_" + topicPrefix.replaceAll("[^A-Za-z0-9_]", "_"));
    c.put("publication.autocreate.mode", "filtered");
    c.put("table.include.list", tables);
    c.put("snapshot.mode", "initial");
    c.put("topic.creation.default.replication.factor", "1");
    c.put("topic.creation.default.partitions", "1");
    // schema changes must be seen as soon as they stream, not cached from the snapshot
    c.put("schema.refresh.mode", "columns_diff");
    return c;
  }

  /** The replication slot name {@link #config} uses for a topic prefix. */
  public static String slotName(String topicPrefix) {
    return "slot_" + topicPrefix.toLowerCase().replaceAll("[^a-z0-9_]", "_");
  }
}
