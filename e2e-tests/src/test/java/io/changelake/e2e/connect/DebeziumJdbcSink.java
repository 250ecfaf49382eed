package io.changelake.e2e.connect;

import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Debezium's JDBC sink as a user deploys it to apply Changelake's changelog topics to a database:
 * its own plugin (the {@code plugin} archive, with hibernate and the JDBC drivers inside) on {@code
 * plugin.path}, and the config of connect-source's README (upsert, deletes on, key from the record
 * key, added columns followed).
 */
public final class DebeziumJdbcSink {
  public static final String CONNECTOR_CLASS = "io.debezium.connector.jdbc.JdbcSinkConnector";

  /** The system property surefire sets to the folder the JDBC sink's archive was unpacked into. */
  public static final String PLUGIN_PATH_PROPERTY = "debezium.jdbc.plugin.path";

  private DebeziumJdbcSink() {}

  /** The folder holding the unpacked {@code debezium-connector-jdbc} plugin. */
  public static Path pluginPath() {
    return PluginWorkers.folderFromProperty(
        PLUGIN_PATH_PROPERTY, "the unpacked debezium-connector-jdbc plugin archive");
  }

  /**
   * Worker props putting the JDBC sink on {@code plugin.path} next to the Changelake plugin, for
   * {@link ConnectPlatform#start(String, int, Map, java.util.Properties)}.
   */
  public static Map<String, String> workerProps() {
    return Map.of("plugin.path", PluginWorkers.pluginPath() + "," + pluginPath());
  }

  /**
   * A sink applying the change events of {@code topics} (comma separated) to {@code database}, each
   * into the table named like the event's {@code source.table}.
   */
  public static Map<String, String> config(PostgresServer pg, String database, String topics) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", CONNECTOR_CLASS);
    c.put("tasks.max", "1");
    c.put("topics", topics);
    c.put("connection.url", pg.jdbcUrl(database));
    c.put("connection.username", PostgresServer.USER);
    c.put("connection.password", PostgresServer.PASSWORD);
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "basic");
    c.put("collection.name.format", "${source.table}");
    c.put("use.time.zone", "UTC");
    return c;
  }
}
