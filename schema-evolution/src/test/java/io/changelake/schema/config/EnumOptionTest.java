package io.changelake.schema.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EnumOptionTest {

  enum Color implements ConfigEnum {
    DARK_RED("Red, darker."),
    BLUE("Blue.");

    private final String description;

    Color(String description) {
      this.description = description;
    }

    @Override
    public String description() {
      return description;
    }
  }

  enum Legacy implements ConfigEnum {
    KEEP,
    DROP;

    @Override
    public String description() {
      return name();
    }

    @Override
    public String configName() {
      return name();
    }
  }

  private static final EnumOption<Color> COLORS = EnumOption.of(Color.class);

  @Test
  void configNamesAreLowerCaseWithDashesInDeclarationOrder() {
    assertThat(Color.DARK_RED.configName()).isEqualTo("dark-red");
    assertThat(COLORS.names()).containsExactly("dark-red", "blue");
    assertThat(COLORS.nameOf(Color.BLUE)).isEqualTo("blue");
  }

  @ParameterizedTest
  @CsvSource({"dark-red,DARK_RED", "DARK-RED,DARK_RED", "' blue ',BLUE", "Blue,BLUE"})
  void parsesAnyCaseIgnoringBlanks(String value, Color expected) {
    assertThat(COLORS.parse("paint", value)).isEqualTo(expected);
    assertThat(ConfigEnum.fromConfigName(Color.class, "paint", value)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"dark_red", "green", "''"})
  void refusesOtherValuesNamingTheOptionTheValueAndTheAllowedOnes(String value) {
    assertThatThrownBy(() -> COLORS.parse("paint.color", value))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Invalid value "
                + value
                + " for configuration paint.color: Must be one of [dark-red, blue]");
  }

  @Test
  void validatorAcceptsWhatParseAcceptsAndShowsTheValuesInTheDocRow() {
    ConfigDef.Validator validator = COLORS.validator();

    validator.ensureValid("paint.color", "Dark-Red");
    assertThatThrownBy(() -> validator.ensureValid("paint.color", null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("paint.color")
        .hasMessageContaining("Must be one of [dark-red, blue]");
    assertThat(validator).hasToString("[dark-red, blue]");
  }

  @Test
  void recommenderListsTheValuesAndCanHideTheKey() {
    assertThat(COLORS.recommender().validValues("paint.color", Map.of()))
        .isEqualTo(List.of("dark-red", "blue"));
    assertThat(COLORS.recommender().visible("paint.color", Map.of())).isTrue();
    ConfigDef.Recommender onlyForBlue =
        COLORS.recommender(parsed -> COLORS.is(parsed.get("paint.color"), Color.BLUE));
    assertThat(onlyForBlue.visible("x", Map.of("paint.color", "BLUE"))).isTrue();
    assertThat(onlyForBlue.visible("x", Map.of("paint.color", "dark-red"))).isFalse();
    assertThat(onlyForBlue.visible("x", Map.of())).isFalse();
  }

  @Test
  void groupDefinesTheDocRowWithDefaultValidatorAndRecommender() {
    ConfigDef def = new ConfigDef();
    new OptionGroup(def, "Paint")
        .define(
            "paint.brush", ConfigDef.Type.INT, 3, Importance.LOW, "Brush size.", Width.SHORT, "B")
        .define(
            "paint.color",
            COLORS,
            Color.DARK_RED,
            Importance.HIGH,
            "Color of the wall.",
            Width.SHORT,
            "Color");

    ConfigDef.ConfigKey key = def.configKeys().get("paint.color");
    assertThat(key.defaultValue).isEqualTo("dark-red");
    assertThat(key.group).isEqualTo("Paint");
    assertThat(key.orderInGroup).isEqualTo(2);
    assertThat(key.validator).hasToString("[dark-red, blue]");
    assertThat(key.recommender.validValues("paint.color", Map.of()))
        .containsExactly("dark-red", "blue");
    assertThat(def.configKeys().get("paint.brush").orderInGroup).isEqualTo(1);
    assertThatThrownBy(() -> new AbstractConfig(def, Map.of("paint.color", "green")))
        .hasMessageContaining("Must be one of [dark-red, blue]");
  }

  @Test
  void aSubsetKeepsItsOwnOrderAndRefusesTheRest() {
    EnumOption<Legacy> onlyDrop = EnumOption.of(List.of(Legacy.DROP));

    assertThat(onlyDrop.names()).containsExactly("DROP");
    assertThat(onlyDrop.parse("k", "drop")).isEqualTo(Legacy.DROP);
    assertThatThrownBy(() -> onlyDrop.parse("k", "KEEP"))
        .hasMessageContaining("Must be one of [DROP]");
  }

  @Test
  void foreignEnumsKeepTheirOwnParserAndMessage() {
    EnumOption<Color> byOwnParser =
        EnumOption.foreign(
            Color.values(),
            Color::configName,
            name -> {
              throw new IllegalArgumentException("Unknown color '" + name + "'; use a real one");
            });

    assertThatThrownBy(() -> byOwnParser.parse("paint.color", "green"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("paint.color")
        .hasMessageContaining("Unknown color 'green'; use a real one");
    assertThat(byOwnParser.validator()).hasToString("[dark-red, blue]");
  }
}
