package io.changelake.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.configs.cli.ChangelakeCli;
import io.changelake.configs.platform.PlatformSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console reaches the changelake CLI through its ServiceLoader seam. */
class ConsoleCommandTest {
  @TempDir Path state;

  @Test
  void changelakeHasAConsoleCommandWhenTheConsoleIsOnTheClassPath() {
    StringWriter out = new StringWriter();
    int code =
        ChangelakeCli.run(
            new PrintWriter(out, true),
            new PrintWriter(new StringWriter(), true),
            "console",
            "--help");

    assertThat(code).isZero();
    assertThat(out.toString())
        .contains("--connect-url")
        .contains("--warehouse")
        .contains("--bootstrap-servers")
        .contains("--enable-actions")
        .contains("Read-only and on 127.0.0.1 unless told otherwise");
  }

  @Test
  void theEmbeddedPlatformStartsAConsoleAndPrintsItsAddress() throws Exception {
    PlatformSettings platform = new PlatformSettings(state, 9092, 9093, 8083, List.of(), Map.of());
    StringWriter out = new StringWriter();

    List<AutoCloseable> started =
        new ConsoleExtension().platformUp(platform, new PrintWriter(out, true));
    try {
      Matcher printed =
          Pattern.compile("console +(http://127\\.0\\.0\\.1:\\d+/)").matcher(out.toString());
      assertThat(printed.find()).as(out.toString()).isTrue();
      HttpResponse<String> page =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(printed.group(1))).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("Changelake console");
    } finally {
      for (AutoCloseable c : started) {
        c.close();
      }
    }
  }
}
