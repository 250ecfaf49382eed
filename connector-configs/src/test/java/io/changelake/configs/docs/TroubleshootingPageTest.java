package io.changelake.configs.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/troubleshooting.md is keyed by message fragments in its {@code ### `...`} headings: each
 * must still be printed by the code (a reworded message would leave users searching the page for
 * text that no longer exists), and each entry gives a cause and a fix.
 */
class TroubleshootingPageTest {
  private static final Path ROOT = Path.of("..");
  private static final Path PAGE = ROOT.resolve("docs/troubleshooting.md");
  private static final Pattern HEADING = Pattern.compile("(?m)^### `(.+)`$");
  // "abc " + x + " def" -> the literals around a value stay apart; "abc" + "def" joins
  private static final Pattern CONCATENATION = Pattern.compile("\"\\s*\\+\\s*\"");

  private static String mainSources() throws IOException {
    List<Path> roots = new ArrayList<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).forEach(roots::add);
    }
    StringBuilder all = new StringBuilder();
    for (Path root : roots) {
      try (Stream<Path> files = Files.walk(root)) {
        all.append(
            files
                .filter(f -> f.toString().endsWith(".java"))
                .map(
                    f -> {
                      try {
                        return Files.readString(f);
                      } catch (IOException e) {
                        throw new UncheckedIOException(e);
                      }
                    })
                .collect(Collectors.joining("\n")));
      }
    }
    return CONCATENATION.matcher(all).replaceAll("");
  }

  @Test
  void everyQuotedMessageIsStillPrintedByTheCode() throws IOException {
    String page = Files.readString(PAGE);
    String sources = mainSources();
    List<String> quoted = new ArrayList<>();
    Matcher heading = HEADING.matcher(page);
    while (heading.find()) {
      quoted.add(heading.group(1));
    }
    assertThat(quoted).as("messages quoted in %s", PAGE).hasSizeGreaterThanOrEqualTo(20);
    assertThat(quoted)
        .as("messages no connector prints any more (reworded? update %s)", PAGE)
        .allMatch(sources::contains);
  }

  @Test
  void everyEntryGivesACauseAndAFix() throws IOException {
    String page = Files.readString(PAGE);
    String[] entries = page.split("(?m)^### ");
    for (int i = 1; i < entries.length; i++) {
      String entry = entries[i].split("(?m)^## ")[0];
      String title = entry.lines().findFirst().orElse("");
      assertThat(entry).as(title).contains("- **Cause**").contains("- **Fix**");
    }
  }
}
