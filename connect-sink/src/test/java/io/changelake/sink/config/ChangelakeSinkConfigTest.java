package io.changelake.sink.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.MergeEngine;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChangelakeSinkConfigTest {

  static Map<String, String> base() {
    Map<String, String> props = new HashMap<>();
    props.put("paimon.warehouse", "file:///tmp/lake");
    return props;
  }

  @Test
  void defaults() {
    ChangelakeSinkConfig config = new ChangelakeSinkConfig(base());
    TableSettings table = config.tableSettings("orders");

    assertThat(config.inputFormat()).isEqualTo(InputFormat.AUTO);
    assertThat(config.database()).isEqualTo("default");
    assertThat(config.commitThreads()).isEqualTo(4);
    assertThat(config.tableNameFormat().toString()).isEqualTo("${topic}");
    assertThat(table.layout().mergeEngine()).isEqualTo(MergeEngine.DEDUPLICATE);
    assertThat(table.layout().buckets()).isEqualTo(4);
    assertThat(table.layout().changelogProducer()).isEqualTo(ChangelogProducer.LOOKUP);
    assertThat(table.deletePolicy()).isEqualTo(DeletePolicy.DEFAULT);
    assertThat(table.truncatePolicy()).isEqualTo(TruncatePolicy.DELETE_ALL);
    assertThat(table.autoCreate()).isTrue();
    assertThat(table.deletesHandled()).isTrue();
    assertThat(config.catalogProperties()).containsEntry("paimon.warehouse", "file:///tmp/lake");
  }

  @Test
  void perTableOverridesWinOverDefaults() {
    Map<String, String> props = base();
    props.put("table.buckets", "8");
    props.put("table.option.file.format", "orc");
    props.put("table.customers.merge-engine", "partial-update");
    props.put("table.customers.delete-policy", "remove-row");
    props.put("table.customers.partition-keys", "region, ");
    props.put("table.customers.option.file.format", "parquet");
    props.put("table.customers.option.snapshot.num-retained.max", "5");
    props.put("paimon.s3.endpoint", "http://localhost:9000");
    ChangelakeSinkConfig config = new ChangelakeSinkConfig(props);

    TableSettings customers = config.tableSettings("customers");
    TableSettings orders = config.tableSettings("orders");

    assertThat(customers.layout().mergeEngine()).isEqualTo(MergeEngine.PARTIAL_UPDATE);
    assertThat(customers.deletePolicy()).isEqualTo(DeletePolicy.REMOVE_ROW);
    assertThat(customers.layout().buckets()).isEqualTo(8);
    assertThat(customers.layout().partitionKeys()).containsExactly("region");
    assertThat(customers.layout().options())
        .containsEntry("file.format", "parquet")
        .containsEntry("snapshot.num-retained.max", "5");
    assertThat(orders.layout().mergeEngine()).isEqualTo(MergeEngine.DEDUPLICATE);
    assertThat(orders.layout().options()).containsEntry("file.format", "orc");
    assertThat(ChangelakeSinkConfig.overriddenTables(props)).containsExactly("customers");
    assertThat(config.catalogProperties()).containsKeys("paimon.warehouse", "paimon.s3.endpoint");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "table.merge-engine|replace|Unknown merge engine 'replace'",
        "table.orders.merge-engine|replace|Invalid settings for table 'orders'",
        "table.orders.bucket|4|Unknown table setting 'bucket'",
        "table.buckets|0|table.buckets",
        "table.changelog-producer|full|Unknown changelog producer",
        "table.delete-policy|drop|Must be one of [default, remove-row, clear-columns, ignore]",
        "table.truncate-policy|wipe|Must be one of [delete-all, ignore, fail]",
        "input.format|avro|Must be one of [auto, envelope, flattened]",
        "route.table.format|${table}|Unknown placeholder ${table}",
        "route.regex.rules|(x=>y|invalid regex",
        "commit.interval.ms|10|commit.interval.ms",
        "commit.threads|0|commit.threads",
        "commit.threads|65|commit.threads",
      })
  void rejectsBadValuesNamingTheKey(String key, String value, String message) {
    Map<String, String> props = base();
    props.put(key, value);

    assertThatThrownBy(() -> new ChangelakeSinkConfig(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void warehouseIsRequired() {
    assertThatThrownBy(() -> new ChangelakeSinkConfig(Map.of()))
        .hasMessageContaining("paimon.warehouse");
  }

  @Test
  void everyKeyIsDocumentedGroupedAndTyped() {
    ConfigDef def = ChangelakeSinkConfig.configDef();

    assertThat(def.configKeys()).hasSizeGreaterThan(20);
    for (ConfigDef.ConfigKey key : def.configKeys().values()) {
      assertThat(key.documentation).as(key.name).isNotBlank();
      assertThat(key.group).as(key.name).isNotBlank();
      assertThat(key.displayName).as(key.name).isNotBlank();
    }
    assertThat(def.configKeys().get("table.merge-engine").recommender.validValues("x", Map.of()))
        .isEqualTo(List.of("deduplicate", "partial-update", "first-row", "aggregation"));
  }

  @Test
  void partialUpdateDeletesNeedAPolicy() {
    Map<String, String> props = base();
    props.put("table.merge-engine", "partial-update");
    ChangelakeSinkConfig config = new ChangelakeSinkConfig(props);
    assertThat(config.tableSettings("t").deletesHandled()).isFalse();

    props.put("table.t.option.partial-update.remove-record-on-delete", "true");
    assertThat(new ChangelakeSinkConfig(props).tableSettings("t").deletesHandled()).isTrue();
    props.put("table.u.delete-policy", "ignore");
    assertThat(new ChangelakeSinkConfig(props).tableSettings("u").deletesHandled()).isTrue();
  }
}
