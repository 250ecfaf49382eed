package io.changelake.e2e.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The baseline connectors, each installed as its own plugin in a folder on {@code plugin.path} next
 * to the Changelake plugin, so every sink and source runs under the same plugin isolation.
 */
final class BenchPlugins {

  /** Apache Iceberg's sink; 1.10.0's events artifact does not resolve, 1.10.1 does. */
  static final String ICEBERG_VERSION = "1.10.1";

  static final String HADOOP_VERSION = "3.4.1";

  private BenchPlugins() {}

  /**
   * Creates {@code root/do-nothing/} holding a jar with the do-nothing sink and {@code
   * root/do-nothing-source/} one with the do-nothing source.
   */
  static void installDoNothing(Path root) {
    writePlugin(
        root.resolve("do-nothing"),
        "bench-do-nothing.jar",
        "org.apache.kafka.connect.sink.SinkConnector",
        List.of(DoNothingSinkConnector.class, DoNothingSinkTask.class));
    writePlugin(
        root.resolve("do-nothing-source"),
        "bench-do-nothing-source.jar",
        "org.apache.kafka.connect.source.SourceConnector",
        List.of(DoNothingSourceConnector.class, DoNothingSourceTask.class, TopicStart.class));
  }

  /**
   * Writes {@code dir/jarName} with {@code classes} (and their nested classes) and the service file
   * that lets the worker find the first of them, the connector, as a {@code service}.
   */
  private static void writePlugin(
      Path dir, String jarName, String service, List<Class<?>> classes) {
    try {
      Files.createDirectories(dir);
      try (OutputStream out = Files.newOutputStream(dir.resolve(jarName));
          JarOutputStream jar = new JarOutputStream(out)) {
        List<Class<?>> all = new ArrayList<>();
        for (Class<?> type : classes) {
          // a nested class left out loads from the class path, where the plugin's classes may not
          // access it (another loader, another runtime package)
          all.add(type);
          all.addAll(List.of(type.getDeclaredClasses()));
        }
        for (Class<?> type : all) {
          String resource = type.getName().replace('.', '/') + ".class";
          jar.putNextEntry(new JarEntry(resource));
          try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
            in.transferTo(jar);
          }
          jar.closeEntry();
        }
        jar.putNextEntry(new JarEntry("META-INF/services/" + service));
        jar.write((classes.get(0).getName() + "\n").getBytes(StandardCharsets.UTF_8));
        jar.closeEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Creates {@code root/iceberg/} with Iceberg's Kafka Connect sink and its runtime libraries
   * (Parquet, the slim Hadoop client for the Hadoop catalog; no Kafka jars), resolved by Maven from
   * a generated POM. Skipped when the folder is already filled.
   */
  static void installIceberg(Path root) {
    Path dir = root.resolve("iceberg");
    try {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> files = Files.list(dir)) {
          if (files.anyMatch(p -> p.getFileName().toString().startsWith("iceberg-kafka-connect"))) {
            return;
          }
        }
      }
      Files.createDirectories(dir);
      Path pom = root.resolve("iceberg-plugin-pom.xml");
      Files.writeString(pom, icebergPom());
      // offline first: everything may already be in the local repository
      if (!copyDependencies(root, pom, dir, true) && !copyDependencies(root, pom, dir, false)) {
        throw new IllegalStateException(
            "resolving Iceberg's Kafka Connect sink failed; see "
                + root.resolve("iceberg-plugin-mvn.log"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static boolean copyDependencies(Path root, Path pom, Path dir, boolean offline)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("bench.mvn", "mvn"));
    command.add("-B");
    command.add("-q");
    if (offline) {
      command.add("-o");
    }
    command.addAll(
        List.of(
            "-f",
            pom.toString(),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            "-DoutputDirectory=" + dir));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(root.resolve("iceberg-plugin-mvn.log").toFile())
            .start();
    return process.waitFor(10, TimeUnit.MINUTES) && process.exitValue() == 0;
  }

  private static String icebergPom() {
    String exclusions =
        "<exclusions><exclusion><groupId>org.apache.kafka</groupId><artifactId>*</artifactId>"
            + "</exclusion><exclusion><groupId>org.slf4j</groupId><artifactId>*</artifactId>"
            + "</exclusion></exclusions>";
    StringBuilder deps = new StringBuilder();
    for (String[] d :
        new String[][] {
          {"org.apache.iceberg", "iceberg-kafka-connect", ICEBERG_VERSION},
          {"org.apache.iceberg", "iceberg-parquet", ICEBERG_VERSION},
          {"org.apache.hadoop", "hadoop-client-api", HADOOP_VERSION},
          {"org.apache.hadoop", "hadoop-client-runtime", HADOOP_VERSION}
        }) {
      deps.append("<dependency><groupId>")
          .append(d[0])
          .append("</groupId><artifactId>")
          .append(d[1])
          .append("</artifactId><version>")
          .append(d[2])
          .append("</version>")
          .append(exclusions)
          .append("</dependency>\n");
    }
    return """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>io.changelake.bench</groupId>
          <artifactId>iceberg-plugin</artifactId>
          <version>1</version>
          <packaging>pom</packaging>
          <dependencies>
          %s
          </dependencies>
          <build><plugins><plugin>
            <groupId>org.apache.maven.plugins</groupId>
            <artifactId>maven-dependency-plugin</artifactId>
            <version>3.8.1</version>
          </plugin></plugins></build>
        </project>
        """
        .formatted(deps);
  }
}
