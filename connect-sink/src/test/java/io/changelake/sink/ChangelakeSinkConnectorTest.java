package io.changelake.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChangelakeSinkConnectorTest {

  static Map<String, String> base() {
    Map<String, String> props = new HashMap<>();
    props.put("name", "sink");
    props.put("connector.class", ChangelakeSinkConnector.class.getName());
    props.put("topics", "a");
    props.put("paimon.warehouse", "file:///tmp/lake");
    return props;
  }

  static Map<String, List<String>> errors(Map<String, String> props) {
    Config config = new ChangelakeSinkConnector().validate(props);
    return config.configValues().stream()
        .filter(v -> !v.errorMessages().isEmpty())
        .collect(Collectors.toMap(ConfigValue::name, ConfigValue::errorMessages));
  }

  @Test
  void acceptsAValidConfig() {
    assertThat(errors(base())).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // key set | value | key the error is attached to | words of the fix
        "table.merge-engine|partial-update|table.delete-policy|table.delete-policy=remove-row",
        "table.orders.merge-engine|partial-update|table.orders.delete-policy|table.orders.delete-policy=remove-row",
        "table.merge-engine|partial-update|table.delete-policy|=clear-columns (a delete clears its topic's",
        "table.orders.delete-policy|clear-columns|table.orders.delete-policy|table.orders.merge-engine=partial-update",
        "key.converter|org.apache.kafka.connect.storage.StringConverter|table.primary-key-fields|set table.primary-key-fields",
        "compaction.snapshots.retain.max|2|compaction.snapshots.retain.max|must be at least",
        "table.merge-engine|replace|table.merge-engine|Unknown merge engine",
        "route.table.format|${source.tbl}|route.table.format|Unknown placeholder",
        "schema.evolution.add-column|MAYBE|schema.evolution.add-column|APPLY",
        "table.orders.bucket|4|table.orders.bucket|Unknown table setting 'bucket'",
      })
  void rejectsWrongCombinationsNamingKeyAndFix(
      String key, String value, String errorKey, String fix) {
    Map<String, String> props = base();
    props.put(key, value);

    Map<String, List<String>> errors = errors(props);

    assertThat(errors).containsKey(errorKey);
    assertThat(String.join(" ", errors.get(errorKey))).contains(fix);
  }

  @Test
  void firstRowTablesRefuseInputChangelogAndSequenceFields() {
    Map<String, String> props = base();
    props.put("table.t.merge-engine", "first-row");
    props.put("table.t.changelog-producer", "input");
    props.put("table.t.sequence-fields", "ts");

    Map<String, List<String>> errors = errors(props);

    assertThat(String.join(" ", errors.get("table.t.changelog-producer")))
        .contains("none or lookup");
    assertThat(String.join(" ", errors.get("table.t.sequence-fields")))
        .contains("refuse sequence fields");
  }

  @Test
  void anObjectStoreWarehouseWithoutACatalogLockIsRefusedWithTheFix() {
    Map<String, String> props = base();
    props.put("paimon.warehouse", "s3://lake/warehouse");
    props.put("paimon.s3.endpoint", "http://localhost:9000");

    Map<String, List<String>> errors = errors(props);

    assertThat(errors).containsOnlyKeys("paimon.warehouse");
    assertThat(String.join(" ", errors.get("paimon.warehouse")))
        .contains(
            "object store", "silently lost", "paimon.metastore=jdbc", "paimon.lock.enabled=true");
    props.put("name", "sink");
    assertThatThrownBy(() -> new ChangelakeSinkConnector().start(props))
        .hasMessageContaining("paimon.metastore=jdbc");
  }

  @Test
  void aJdbcCatalogWithItsLockTurnedOffIsRefused() {
    Map<String, String> props = base();
    props.put("paimon.warehouse", "s3a://lake/warehouse");
    props.put("paimon.metastore", "jdbc");
    props.put("paimon.uri", "jdbc:postgresql://db:5432/paimon");
    props.put("paimon.lock.enabled", "false");

    assertThat(String.join(" ", errors(props).get("paimon.warehouse")))
        .contains("paimon.lock.enabled=false turns the jdbc catalog's lock off");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // warehouse | metastore | lock.enabled
        "s3://lake/warehouse|jdbc|true",
        "s3://lake/warehouse|jdbc|",
        "oss://lake/warehouse|hive|true",
        "s3://lake/warehouse|rest|",
        "file:///tmp/lake||",
        "/tmp/lake||",
        "hdfs://namenode/lake||",
      })
  void warehousesWhoseCommitsAreAtomicOrLockedAreAccepted(
      String warehouse, String metastore, String lockEnabled) {
    Map<String, String> props = base();
    props.put("paimon.warehouse", warehouse);
    if (metastore != null) {
      props.put("paimon.metastore", metastore);
      props.put("paimon.uri", "jdbc:postgresql://db:5432/paimon");
    }
    if (lockEnabled != null) {
      props.put("paimon.lock.enabled", lockEnabled);
    }

    assertThat(errors(props)).isEmpty();
  }

  @Test
  void partialUpdateWithAPolicyIsAccepted() {
    Map<String, String> props = base();
    props.put("table.merge-engine", "partial-update");
    props.put("table.delete-policy", "remove-row");

    assertThat(errors(props)).isEmpty();
  }

  @Test
  void configDefIncludesSchemaEvolutionKeys() {
    assertThat(ChangelakeSinkConnector.configDef().names())
        .contains("schema.evolution.add-column", "paimon.warehouse", "table.merge-engine");
  }

  @Test
  void tasksGetTheirIdAndCount() {
    ChangelakeSinkConnector connector = new ChangelakeSinkConnector();
    connector.start(base());

    List<Map<String, String>> tasks = connector.taskConfigs(3);

    assertThat(tasks).hasSize(3);
    assertThat(tasks.get(2)).containsEntry("changelake.task.id", "2");
    assertThat(tasks.get(2)).containsEntry("changelake.task.count", "3");
  }
}
