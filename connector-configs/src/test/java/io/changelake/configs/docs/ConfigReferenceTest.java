package io.changelake.configs.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.changelake.sink.ChangelakeSinkConnector;
import io.changelake.source.ChangelakeSourceConnector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * README.md's configuration reference is generated from the connectors' ConfigDefs. This test fails
 * when it is out of date and, with {@code -Dchangelake.docs.write=true}, rewrites it.
 */
class ConfigReferenceTest {
  static final String REGENERATE =
      "mvn -B -o -q -pl connector-configs test -Dtest=ConfigReferenceTest"
          + " -Dchangelake.docs.write=true";
  private static final Path README = Path.of("..", "README.md");

  static String generated() {
    return "Generated from the connectors' `ConfigDef`s by `"
        + REGENERATE
        + "`; do not edit by hand. Connect's own keys (`tasks.max`, `topics`, converters,"
        + " `transforms`, `errors.*`, `topic.creation.*`) work as usual. Keys starting with"
        + " `paimon.` go to the Paimon catalog with the prefix removed.\n\n"
        + ConfigReference.render(
            "Sink: `io.changelake.sink.ChangelakeSinkConnector`",
            "Debezium change events (or flat records) from Kafka into Paimon primary-key tables.",
            new ChangelakeSinkConnector().config())
        + "\n"
        + ConfigReference.render(
            "Source: `io.changelake.source.ChangelakeSourceConnector`",
            "Paimon table changelogs to Kafka topics, as Debezium-compatible change events.",
            new ChangelakeSourceConnector().config());
  }

  @Test
  void readmeReferenceIsUpToDate() throws IOException {
    String readme = Files.readString(README);
    String wanted = ReadmeSection.replace(readme, generated());
    if (Boolean.getBoolean("changelake.docs.write")) {
      Files.writeString(README, wanted);
      return;
    }
    if (!wanted.equals(readme)) {
      fail(
          "README.md's configuration reference (between "
              + ReadmeSection.START
              + " and "
              + ReadmeSection.END
              + ") is out of date with the connectors' ConfigDefs. Regenerate it with:\n  "
              + REGENERATE);
    }
  }

  @Test
  void rendersEveryKeyWithTypeDefaultValidValuesAndGroup() {
    ConfigDef def =
        new ConfigDef()
            .define(
                "a.required",
                ConfigDef.Type.STRING,
                ConfigDef.NO_DEFAULT_VALUE,
                new ConfigDef.NonEmptyString(),
                ConfigDef.Importance.HIGH,
                "Must be | set",
                "First",
                1,
                ConfigDef.Width.SHORT,
                "A")
            .define(
                "b.count",
                ConfigDef.Type.INT,
                5,
                ConfigDef.Range.atLeast(1),
                ConfigDef.Importance.LOW,
                "How many",
                "Second",
                1,
                ConfigDef.Width.SHORT,
                "B")
            .define(
                "c.secret",
                ConfigDef.Type.PASSWORD,
                "s3cr3t",
                ConfigDef.Importance.MEDIUM,
                "A secret");

    String md = ConfigReference.render("T", "Intro.", def);

    assertThat(md)
        .contains("#### First")
        .contains(
            "| `a.required` | string | *required* | non-empty string | high | Must be \\| set |")
        .contains("#### Second")
        .contains("| `b.count` | int | `5` | [1,...] | low | How many |")
        .contains("#### General")
        .contains("| `c.secret` | password | [hidden] |")
        .doesNotContain("s3cr3t");
    assertThat(md.indexOf("#### First")).isLessThan(md.indexOf("#### Second"));
  }

  @Test
  void replacesOnlyTheMarkedSection() {
    String readme =
        "# X\n\nintro\n\n## Configuration reference\n\n"
            + ReadmeSection.START
            + "\nold\n"
            + ReadmeSection.END
            + "\n\n## After\n";
    String updated = ReadmeSection.replace(readme, "new");
    assertThat(updated)
        .contains("intro")
        .contains("\nnew\n")
        .contains("## After")
        .doesNotContain("old");
    assertThat(ReadmeSection.replace("# X\n", "gen"))
        .isEqualTo(
            "# X\n\n## Configuration reference\n\n"
                + ReadmeSection.START
                + "\ngen\n"
                + ReadmeSection.END
                + "\n");
  }
}
