package io.changelake.sink;

import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.schema.evolution.EvolutionPolicy;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.config.DeletePolicy;
import io.changelake.sink.config.TableSettings;
import io.changelake.sink.task.ChangelakeSinkTask;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * Writes Debezium change streams into Paimon primary-key tables. See the module README for the
 * settings and the guarantees.
 */
public final class ChangelakeSinkConnector extends SinkConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return Versions.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    new ChangelakeSinkConfig(props);
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return ChangelakeSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    for (int i = 0; i < maxTasks; i++) {
      Map<String, String> task = new HashMap<>(props);
      task.put(ChangelakeSinkTask.TASK_ID, Integer.toString(i));
      task.put(ChangelakeSinkTask.TASK_COUNT, Integer.toString(maxTasks));
      configs.add(task);
    }
    return configs;
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return configDef();
  }

  /** The sink's keys and the schema evolution keys, for Connect and the generated docs. */
  public static ConfigDef configDef() {
    return ChangelakeSinkConfig.configDef();
  }

  /**
   * Connect's per-key validation, then the combinations no single key can check; each error is
   * attached to the key to change.
   */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    Map<String, ConfigValue> values = new HashMap<>();
    config.configValues().forEach(v -> values.put(v.name(), v));
    if (values.values().stream().anyMatch(v -> !v.errorMessages().isEmpty())) {
      return config;
    }
    ChangelakeSinkConfig parsed;
    try {
      parsed = new ChangelakeSinkConfig(connectorConfigs);
      EvolutionPolicy.from(connectorConfigs);
    } catch (ConfigException e) {
      addError(config, values, keyOf(e.getMessage()), e.getMessage());
      return config;
    }
    checkTable(config, values, parsed, null, connectorConfigs);
    for (String table : ChangelakeSinkConfig.overriddenTables(connectorConfigs)) {
      checkTable(config, values, parsed, table, connectorConfigs);
    }
    if (parsed.snapshotsRetainMax() < parsed.snapshotsRetainMin()) {
      addError(
          config,
          values,
          ChangelakeSinkConfig.SNAPSHOT_RETAIN_MAX,
          ChangelakeSinkConfig.SNAPSHOT_RETAIN_MAX
              + " must be at least "
              + ChangelakeSinkConfig.SNAPSHOT_RETAIN_MIN
              + " ("
              + parsed.snapshotsRetainMin()
              + ")");
    }
    return config;
  }

  private static final Set<String> SCHEMALESS_KEY_CONVERTERS =
      Set.of(
          "org.apache.kafka.connect.storage.StringConverter",
          "org.apache.kafka.connect.converters.ByteArrayConverter");

  private static void checkTable(
      Config config,
      Map<String, ConfigValue> values,
      ChangelakeSinkConfig parsed,
      String table,
      Map<String, String> props) {
    // the defaults are checked as the settings of a table without overrides
    TableSettings settings = parsed.tableSettings(table == null ? "\u0000" : table);
    TableLayout layout = settings.layout();
    String prefix = table == null ? "table." : "table." + table + ".";
    if (layout.mergeEngine() == MergeEngine.PARTIAL_UPDATE && !settings.deletesHandled()) {
      addError(
          config,
          values,
          prefix + ChangelakeSinkConfig.DELETE_POLICY,
          (table == null ? "Partial-update tables" : "Partial-update table '" + table + "'")
              + " cannot apply deletes by default: set "
              + prefix
              + ChangelakeSinkConfig.DELETE_POLICY
              + "=remove-row (a delete removes the row), =clear-columns (a delete clears its topic's"
              + " columns) or =ignore (rows stay)");
    }
    if (layout.mergeEngine() != MergeEngine.PARTIAL_UPDATE
        && settings.deletePolicy() == DeletePolicy.CLEAR_COLUMNS) {
      addError(
          config,
          values,
          prefix + ChangelakeSinkConfig.DELETE_POLICY,
          "delete-policy=clear-columns clears the columns of one topic in a partial-update table;"
              + " a "
              + layout.mergeEngine().paimonName()
              + " table stores whole rows: set "
              + prefix
              + ChangelakeSinkConfig.DELETE_POLICY
              + "=remove-row or ignore, or "
              + prefix
              + ChangelakeSinkConfig.MERGE_ENGINE
              + "=partial-update");
    }
    if (layout.mergeEngine() == MergeEngine.FIRST_ROW
        && layout.changelogProducer() == ChangelogProducer.INPUT) {
      addError(
          config,
          values,
          prefix + ChangelakeSinkConfig.CHANGELOG_PRODUCER,
          "Paimon's first-row tables support changelog-producer none or lookup only; set "
              + prefix
              + ChangelakeSinkConfig.CHANGELOG_PRODUCER
              + "=lookup");
    }
    if (layout.mergeEngine() == MergeEngine.FIRST_ROW && !layout.sequenceFields().isEmpty()) {
      addError(
          config,
          values,
          prefix + ChangelakeSinkConfig.SEQUENCE_FIELDS,
          "Paimon's first-row tables keep the first version of a key and refuse sequence fields;"
              + " remove "
              + prefix
              + ChangelakeSinkConfig.SEQUENCE_FIELDS);
    }
    String keyConverter = props.get("key.converter");
    if (keyConverter != null
        && SCHEMALESS_KEY_CONVERTERS.contains(keyConverter.trim())
        && settings.primaryKeyFields().isEmpty()) {
      addError(
          config,
          values,
          prefix + ChangelakeSinkConfig.PRIMARY_KEY_FIELDS,
          "key.converter "
              + keyConverter
              + " gives keys without a schema, so the primary key cannot come from the record"
              + " key; set "
              + prefix
              + ChangelakeSinkConfig.PRIMARY_KEY_FIELDS
              + " to the key columns, or use a key converter with schemas");
    }
  }

  private static String keyOf(String message) {
    int start = message.indexOf("configuration ");
    if (start >= 0) {
      int end = message.indexOf(' ', start + "configuration ".length());
      if (end > 0) {
        String key = message.substring(start + "configuration ".length(), end);
        return key.endsWith(":") ? key.substring(0, key.length() - 1) : key;
      }
    }
    return ChangelakeSinkConfig.TABLE_PREFIX + "option.*";
  }

  private static void addError(
      Config config, Map<String, ConfigValue> values, String key, String message) {
    ConfigValue value = values.get(key);
    if (value == null) {
      value = new ConfigValue(key);
      values.put(key, value);
      config.configValues().add(value);
    }
    value.addErrorMessage(message);
  }

  /**
   * Offsets may be reset or moved: each table keeps in its snapshots the offsets it contains, so
   * records it already holds are skipped when replayed, and records skipped by moving forward are
   * simply not written. Re-ingesting into a table therefore needs the table dropped as well.
   */
  @Override
  public boolean alterOffsets(
      Map<String, String> connectorConfig, Map<TopicPartition, Long> offsets) {
    return true;
  }
}
