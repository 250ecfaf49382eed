package io.changelake.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.changelog.StartPosition;
import io.changelake.source.record.RecordFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;

class ChangelakeSourceConfigTest {

  private static Map<String, String> props(String... keyValues) {
    Map<String, String> props = new HashMap<>();
    props.put("paimon.warehouse", "file:///tmp/lake");
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    return props;
  }

  @Test
  void defaults() {
    ChangelakeSourceConfig config = new ChangelakeSourceConfig(props("tables", "shop.orders"));
    assertThat(config.startPosition()).isEqualTo(new StartPosition.FullThenChanges());
    assertThat(config.recordFormat()).isEqualTo(RecordFormat.ENVELOPE);
    assertThat(config.topicNameFormat()).isEqualTo("${database}.${table}");
    assertThat(config.tombstonesOnDelete()).isTrue();
    assertThat(config.batchSize()).isEqualTo(2048);
    // sanitized names that collide get different ids: the hash is of the exact name
    assertThat(config.consumerIdBase("my connector")).matches("my_connector-[0-9a-f]{8}");
    assertThat(config.consumerIdBase("my_connector")).matches("my_connector-[0-9a-f]{8}");
    assertThat(config.consumerIdBase("my connector"))
        .isNotEqualTo(config.consumerIdBase("my_connector"))
        .isEqualTo(config.consumerIdBase("my connector"));
    assertThat(
            new ChangelakeSourceConfig(props("tables", "shop.orders", "consumer.id", "mine"))
                .consumerIdBase("my connector"))
        .isEqualTo("mine");
    assertThat(config.tableSelector().selects(Identifier.create("shop", "orders"))).isTrue();
    assertThat(config.tableSelector().selects(Identifier.create("shop", "other"))).isFalse();
  }

  @Test
  void regexSelectsWholeQualifiedNames() {
    TableSelector selector =
        new ChangelakeSourceConfig(props("tables.regex", "shop\\.ord.*")).tableSelector();
    assertThat(selector.selects(Identifier.create("shop", "orders"))).isTrue();
    assertThat(selector.selects(Identifier.create("shop2", "orders"))).isFalse();
  }

  @Test
  void startPositionsNeedTheirValue() {
    assertThat(
            new ChangelakeSourceConfig(
                    props("tables", "a.b", "start.position", "SNAPSHOT", "start.snapshot.id", "7"))
                .startPosition())
        .isEqualTo(new StartPosition.FromSnapshot(7));
    assertThat(
            new ChangelakeSourceConfig(
                    props(
                        "tables", "a.b", "start.position", "timestamp", "start.timestamp.ms", "5"))
                .startPosition())
        .isEqualTo(new StartPosition.FromTimestamp(5));
    assertThat(
            new ChangelakeSourceConfig(props("tables", "a.b", "start.position", "latest"))
                .startPosition())
        .isEqualTo(new StartPosition.Latest());
    assertThatThrownBy(
            () -> new ChangelakeSourceConfig(props("tables", "a.b", "start.position", "snapshot")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("start.snapshot.id")
        .hasMessageContaining("required when start.position=snapshot");
  }

  @Test
  void singleKeyErrorsAreClear() {
    assertThatThrownBy(() -> new ChangelakeSourceConfig(props("tables", "orders")))
        .hasMessageContaining("expected <database>.<table>");
    assertThatThrownBy(
            () -> new ChangelakeSourceConfig(props("tables", "a.b", "topic.name.format", "cdc")))
        .hasMessageContaining("must contain ${table}");
    assertThatThrownBy(
            () ->
                new ChangelakeSourceConfig(
                    props("tables", "a.b", "topic.name.format", "${schema}.${table}")))
        .hasMessageContaining("only ${database} and ${table}");
    assertThatThrownBy(() -> new ChangelakeSourceConfig(props("tables.regex", "(")))
        .hasMessageContaining("not a valid regex");
    assertThatThrownBy(
            () -> new ChangelakeSourceConfig(props("tables", "a.b", "record.format", "avro")))
        .hasMessageContaining("record.format");
    assertThatThrownBy(() -> new ChangelakeSourceConfig(props("tables", "a.b", "batch.size", "0")))
        .hasMessageContaining("batch.size");
  }

  @Test
  void connectValidationReportsCrossKeyRulesOnTheKeyToChange() {
    ChangelakeSourceConnector connector = new ChangelakeSourceConnector();
    Config both = connector.validate(props("tables", "a.b", "tables.regex", "a\\..*"));
    assertThat(errorsOf(both, "tables")).singleElement().asString().contains("exactly one of");

    Config missing = connector.validate(props("tables", "a.b", "start.position", "timestamp"));
    assertThat(errorsOf(missing, "start.timestamp.ms")).isNotEmpty();

    Config fine = connector.validate(props("tables", "a.b"));
    assertThat(fine.configValues())
        .allSatisfy(value -> assertThat(value.errorMessages()).isEmpty());
  }

  @Test
  void everyKeyIsDocumentedGroupedAndTyped() {
    ConfigDef def = ChangelakeSourceConfig.configDef();
    assertThat(def.configKeys()).hasSizeGreaterThanOrEqualTo(14);
    def.configKeys()
        .values()
        .forEach(
            key -> {
              assertThat(key.documentation).as(key.name).isNotBlank();
              assertThat(key.group).as(key.name).isNotBlank();
              assertThat(key.displayName).as(key.name).isNotBlank();
            });
  }

  private static List<String> errorsOf(Config config, String key) {
    return config.configValues().stream()
        .filter(value -> value.name().equals(key))
        .map(ConfigValue::errorMessages)
        .findFirst()
        .orElseThrow();
  }
}
