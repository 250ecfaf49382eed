package io.changelake.schema.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class PerTableKeysTest {

  private static final PerTableKeys KEYS = new PerTableKeys("table.", settings(), "option", "opt");

  private static ConfigDef settings() {
    ConfigDef def = new ConfigDef();
    new OptionGroup(def, "Tables")
        .define(
            "buckets",
            Type.INT,
            4,
            ConfigDef.Range.atLeast(1),
            Importance.LOW,
            "Buckets.",
            Width.SHORT,
            "B")
        .define("keys", Type.LIST, "", Importance.LOW, "Keys.", Width.SHORT, "K");
    return def;
  }

  @Test
  void aTablesOwnKeysWinOverTheDefaultsWhichWinOverTheDeclaredDefaults() {
    Map<String, String> props =
        Map.of(
            "table.keys", "id",
            "table.option.file.format", "orc",
            "table.orders.buckets", "8",
            "table.orders.option.file.format", "parquet",
            "other.key", "x");

    PerTableKeys.Resolved orders = KEYS.resolve(props, "orders");
    PerTableKeys.Resolved customers = KEYS.resolve(props, "customers");

    assertThat(orders.settings()).containsEntry("buckets", 8).containsEntry("keys", List.of("id"));
    assertThat(orders.passthrough()).containsExactly(Map.entry("file.format", "parquet"));
    assertThat(customers.settings()).containsEntry("buckets", 4);
    assertThat(customers.passthrough()).containsExactly(Map.entry("file.format", "orc"));
    assertThat(KEYS.overriddenTables(props)).containsExactly("orders");
  }

  @Test
  void anUnknownSettingNamesTheKeyAndTheKnownSettings() {
    assertThatThrownBy(() -> KEYS.resolve(Map.of("table.orders.bucket", "8"), "orders"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("table.orders.bucket")
        .hasMessageContaining(
            "Unknown table setting 'bucket'. Per-table keys are table.<table>.<setting> with"
                + " <setting> one of [buckets, keys], or table.<table>.option.<opt>");
  }

  @Test
  void anInvalidOverrideNamesTheTableAndTheSetting() {
    assertThatThrownBy(() -> KEYS.resolve(Map.of("table.orders.buckets", "0"), "orders"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Invalid settings for table 'orders' (table.orders.*)")
        .hasMessageContaining("buckets");
  }

  @Test
  void theDefaultsAreDocumentedUnderThePrefix() {
    ConfigDef def = new ConfigDef();
    KEYS.defineDefaults(new OptionGroup(def, "Tables"));

    assertThat(def.names()).containsExactly("table.buckets", "table.keys");
    assertThat(def.configKeys().get("table.buckets").documentation).isEqualTo("Buckets.");
    assertThat(def.configKeys().get("table.buckets").defaultValue).isEqualTo(4);
    assertThat(def.configKeys().get("table.keys").orderInGroup).isEqualTo(2);
  }
}
