package io.changelake.schema.evolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EvolutionPolicyTest {

  @Test
  void defaultsApplyLosslessChangesAndRefuseTheRest() {
    EvolutionPolicy policy = EvolutionPolicy.defaults();

    assertThat(policy.addColumn()).isEqualTo(SchemaChangeBehavior.APPLY);
    assertThat(policy.addRequiredColumn()).isEqualTo(SchemaChangeBehavior.FAIL);
    assertThat(policy.widenType()).isEqualTo(SchemaChangeBehavior.APPLY);
    assertThat(policy.relaxNotNull()).isEqualTo(SchemaChangeBehavior.APPLY);
    assertThat(policy.missingColumn()).isEqualTo(SchemaChangeBehavior.APPLY);
    assertThat(policy.incompatibleType()).isEqualTo(SchemaChangeBehavior.FAIL);
    assertThat(policy.maxAttempts()).isEqualTo(10);
  }

  @Test
  void everyKeyIsTypedDocumentedAndInTheSchemaEvolutionGroup() {
    ConfigDef def = EvolutionPolicy.configDef();

    assertThat(def.names())
        .containsExactlyInAnyOrder(
            EvolutionPolicy.ADD_COLUMN,
            EvolutionPolicy.ADD_REQUIRED_COLUMN,
            EvolutionPolicy.WIDEN_TYPE,
            EvolutionPolicy.RELAX_NOT_NULL,
            EvolutionPolicy.MISSING_COLUMN,
            EvolutionPolicy.INCOMPATIBLE_TYPE,
            EvolutionPolicy.MAX_ATTEMPTS);
    assertThat(def.configKeys().values())
        .allSatisfy(
            key -> {
              assertThat(key.name).startsWith("schema.evolution.");
              assertThat(key.group).isEqualTo("Schema evolution");
              assertThat(key.documentation).hasSizeGreaterThan(60);
              assertThat(key.hasDefault()).isTrue();
              assertThat(key.validator).isNotNull();
            });
  }

  @ParameterizedTest
  @CsvSource({
    "schema.evolution.add-column, ignore, IGNORE",
    "schema.evolution.add-required-column, Apply, APPLY",
    "schema.evolution.widen-type, FAIL, FAIL",
    "schema.evolution.relax-not-null, ignore, IGNORE",
    "schema.evolution.missing-column, fail, FAIL",
    "schema.evolution.incompatible-type, lenient, LENIENT",
    "schema.evolution.incompatible-type, IGNORE, IGNORE"
  })
  void readsEachKeyCaseInsensitively(String key, String value, SchemaChangeBehavior expected) {
    EvolutionPolicy policy = EvolutionPolicy.from(Map.of(key, value, "topics", "ignored"));

    Map<String, SchemaChangeBehavior> byKey =
        Map.of(
            EvolutionPolicy.ADD_COLUMN, policy.addColumn(),
            EvolutionPolicy.ADD_REQUIRED_COLUMN, policy.addRequiredColumn(),
            EvolutionPolicy.WIDEN_TYPE, policy.widenType(),
            EvolutionPolicy.RELAX_NOT_NULL, policy.relaxNotNull(),
            EvolutionPolicy.MISSING_COLUMN, policy.missingColumn(),
            EvolutionPolicy.INCOMPATIBLE_TYPE, policy.incompatibleType());
    assertThat(byKey.get(key)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({
    "schema.evolution.add-column, LENIENT",
    "schema.evolution.widen-type, sometimes",
    "schema.evolution.incompatible-type, APPLY",
    "schema.evolution.max-attempts, 0"
  })
  void refusesValuesThatDoNotApplyToTheKey(String key, String value) {
    assertThatThrownBy(() -> EvolutionPolicy.from(Map.of(key, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);

    List<ConfigValue> validated = EvolutionPolicy.configDef().validate(Map.of(key, value));
    assertThat(
            validated.stream()
                .filter(v -> v.name().equals(key))
                .findFirst()
                .orElseThrow()
                .errorMessages())
        .isNotEmpty();
  }

  @Test
  void mergesIntoAConnectorConfigDefAndOffersTheAllowedValues() {
    ConfigDef connector =
        new ConfigDef().define("topics", ConfigDef.Type.LIST, ConfigDef.Importance.HIGH, "topics");
    EvolutionPolicy.configDef().configKeys().values().forEach(connector::define);

    Map<String, ConfigValue> validated =
        connector.validate(Map.of("topics", "a")).stream()
            .collect(Collectors.toMap(ConfigValue::name, v -> v));
    assertThat(validated.get(EvolutionPolicy.INCOMPATIBLE_TYPE).recommendedValues())
        .containsExactly("FAIL", "IGNORE", "LENIENT");
    assertThat(validated.get(EvolutionPolicy.ADD_COLUMN).recommendedValues())
        .containsExactly("APPLY", "IGNORE", "FAIL");
  }

  @Test
  void recordRefusesLenientOutsideIncompatibleTypes() {
    assertThatThrownBy(
            () ->
                new EvolutionPolicy(
                    SchemaChangeBehavior.LENIENT,
                    SchemaChangeBehavior.FAIL,
                    SchemaChangeBehavior.APPLY,
                    SchemaChangeBehavior.APPLY,
                    SchemaChangeBehavior.APPLY,
                    SchemaChangeBehavior.FAIL,
                    3))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(EvolutionPolicy.ADD_COLUMN);
  }
}
