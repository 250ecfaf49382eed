package io.changelake.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.schema.evolution.EvolutionPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/** The README's policy table is generated from {@link EvolutionPolicy#configDef()}. */
class ReadmeTest {

  private static final String BEGIN = "<!-- policy-table:begin -->";
  private static final String END = "<!-- policy-table:end -->";

  @Test
  void policyTableMatchesTheConfigDef() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int begin = readme.indexOf(BEGIN);
    int end = readme.indexOf(END);
    assertThat(begin).as("README.md has the policy table markers").isNotNegative();
    String actual = readme.substring(begin + BEGIN.length(), end).strip();

    assertThat(actual)
        .as("README policy table; replace it with the expected text")
        .isEqualTo(policyTable());
  }

  static String policyTable() {
    String rows =
        EvolutionPolicy.configDef().configKeys().values().stream()
            .sorted(Comparator.comparingInt(k -> k.orderInGroup))
            .map(
                key ->
                    "| `"
                        + key.name
                        + "` | "
                        + key.type.name().toLowerCase()
                        + " | `"
                        + ConfigDef.convertToString(key.defaultValue, key.type)
                        + "` | "
                        + key.documentation.replace("|", "\\|")
                        + " |")
            .collect(Collectors.joining("\n"));
    return "| key | type | default | what it does |\n|---|---|---|---|\n" + rows;
  }
}
