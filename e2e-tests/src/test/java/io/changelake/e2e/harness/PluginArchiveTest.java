package io.changelake.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.e2e.connect.PluginWorkers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The plugin archive as an operator downloads it: Confluent Hub's component layout, the build's
 * version everywhere, a checksum that matches, and a NOTICE that lists exactly the jars it ships.
 */
class PluginArchiveTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VERSION = System.getProperty("changelake.version");
  // a jar line of NOTICE: two-space indent, the file name, optionally its licence
  private static final Pattern NOTICE_JAR = Pattern.compile("^  (\\S+\\.jar)\\b.*$");

  private final Path archive = PluginWorkers.pluginFolder();

  @Test
  void theFolderIsNamedAfterTheComponentAndVersionWithAHubManifest() throws IOException {
    assertThat(archive.getFileName().toString()).isEqualTo("changelake-kafka-connect-" + VERSION);
    JsonNode manifest = JSON.readTree(archive.resolve("manifest.json").toFile());
    assertThat(manifest.path("name").asText()).isEqualTo("changelake-kafka-connect");
    assertThat(manifest.path("version").asText()).isEqualTo(VERSION);
    assertThat(manifest.path("owner").path("username").asText()).isNotBlank();
    assertThat(manifest.path("license").path(0).path("name").asText())
        .isEqualTo("Apache License, Version 2.0");
    assertThat(JSON.convertValue(manifest.path("component_types"), List.class))
        .contains("sink", "source");
    assertThat(manifest.path("requirements").toString()).contains("3.9", "Java 17");
    assertThat(manifest.path("release_date").asText()).matches("\\d{4}-\\d{2}-\\d{2}");
  }

  @Test
  void etcHoldsTheDeclarativeConfigsAndDocTheReadmeAndLicences() throws IOException {
    assertThat(names(archive.resolve("etc")))
        .isEqualTo(names(Path.of("../connector-configs"), ".json"));
    assertThat(names(archive.resolve("doc"))).contains("README.md", "LICENSE", "NOTICE");
    assertThat(Files.readString(archive.resolve("doc/LICENSE")))
        .contains("Apache License", "Version 2.0, January 2004")
        .isEqualTo(Files.readString(Path.of("../LICENSE")));
    assertThat(Files.readString(archive.resolve("doc/NOTICE")))
        .isEqualTo(Files.readString(Path.of("../NOTICE")));
  }

  @Test
  void noticeListsExactlyTheJarsInLib() throws IOException {
    Set<String> listed = new TreeSet<>();
    for (String line : Files.readAllLines(archive.resolve("doc/NOTICE"))) {
      Matcher m = NOTICE_JAR.matcher(line);
      if (m.matches()) {
        listed.add(m.group(1).replace("<version>", VERSION));
      }
    }
    assertThat(names(archive.resolve("lib")))
        .as("jars in lib/ vs. NOTICE's list: update NOTICE (name and licence) with the archive")
        .isEqualTo(listed);
  }

  @Test
  void theChangelakeJarsCarryTheBuildVersionInTheirManifests() throws IOException {
    for (String jar : List.of("connect-sink", "connect-source", "connect-metrics")) {
      try (JarFile file =
          new JarFile(archive.resolve("lib/" + jar + "-" + VERSION + ".jar").toFile())) {
        assertThat(file.getManifest().getMainAttributes().getValue("Implementation-Version"))
            .as(jar)
            .isEqualTo(VERSION);
      }
    }
  }

  @Test
  void theSha512FileNextToTheZipMatchesIt() throws Exception {
    Path dir = PluginWorkers.folderFromProperty("changelake.archive.dir", "the archive's folder");
    Path zip = dir.resolve("changelake-kafka-connect-" + VERSION + ".zip");
    String line = Files.readString(dir.resolve(zip.getFileName() + ".sha512")).trim();
    MessageDigest sha = MessageDigest.getInstance("SHA-512");
    try (InputStream in = Files.newInputStream(zip)) {
      byte[] buffer = new byte[1 << 16];
      for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
        sha.update(buffer, 0, n);
      }
    }
    // sha512sum -c format: "<hex>  <file name>"
    assertThat(line).isEqualTo(HexFormat.of().formatHex(sha.digest()) + "  " + zip.getFileName());
  }

  private static Set<String> names(Path dir) throws IOException {
    return names(dir, "");
  }

  private static Set<String> names(Path dir, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(Files::isRegularFile)
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(suffix))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
