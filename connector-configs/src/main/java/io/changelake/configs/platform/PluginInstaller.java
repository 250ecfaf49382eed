package io.changelake.configs.platform;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Installs the plugins the embedded worker loads: the Changelake archive (unzipped) and the
 * Debezium PostgreSQL connector, each in its own directory so Connect isolates them.
 */
public final class PluginInstaller {
  static final String ARCHIVE_PREFIX = "changelake-kafka-connect-";
  static final String DEBEZIUM_POSTGRES = "debezium-postgres";

  /** Overrides where the plugin archive and {@code plugins/} are looked for. */
  public static final String HOME_PROPERTY = "changelake.home";

  private PluginInstaller() {}

  /**
   * The CLI's home, where the plugin archive and {@code plugins/} sit: the folder of the jar (or
   * classes folder) holding this class, or the folder above it when that is {@code lib/} — the full
   * CLI ({@code connector-configs/distribution/target/changelake-cli.jar}) keeps this module's jar
   * in {@code lib/} beside it. The system property {@value #HOME_PROPERTY} names another folder
   * (the CLI's tests point it at this module's {@code target/}, where the build leaves both).
   */
  public static Path buildDir() {
    String home = System.getProperty(HOME_PROPERTY);
    if (home != null && !home.isBlank()) {
      return Path.of(home);
    }
    try {
      Path location =
          Path.of(
              PluginInstaller.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path dir = location.getParent();
      return dir.getFileName() != null && dir.getFileName().toString().equals("lib")
          ? dir.getParent()
          : dir;
    } catch (URISyntaxException e) {
      throw new PlatformException("Cannot locate the changelake CLI jar: " + e.getMessage(), e);
    }
  }

  /** The Changelake plugin archive next to the CLI jar, if the build made one. */
  public static Optional<Path> findArchive(Path buildDir) {
    try (DirectoryStream<Path> zips =
        Files.newDirectoryStream(buildDir, ARCHIVE_PREFIX + "*.zip")) {
      for (Path zip : zips) {
        return Optional.of(zip);
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Lays out {@code pluginsDir} afresh from the archive and the Debezium directory of the build, so
   * a rebuilt plugin takes effect on the next start. Returns what to put on {@code plugin.path}:
   * the parent directory, whose children Connect loads as one isolated plugin each (a plugin
   * directory itself on the path would make every jar in it a plugin of its own).
   */
  public static List<Path> install(Path pluginsDir, Optional<Path> archive, Path buildDir) {
    List<Path> installed = new ArrayList<>();
    try {
      Files.createDirectories(pluginsDir);
      if (archive.isPresent()) {
        // the archive's folder carries its version: drop every earlier one (and the unversioned
        // folder of archives before 0.1), or two builds would both be loaded
        try (DirectoryStream<Path> earlier =
            Files.newDirectoryStream(pluginsDir, "changelake-{connect,kafka-connect-*}")) {
          for (Path old : earlier) {
            deleteTree(old);
          }
        }
        unzip(archive.get(), pluginsDir);
        installed.add(pluginsDir);
      }
      Path debezium = buildDir.resolve("plugins").resolve(DEBEZIUM_POSTGRES);
      if (Files.isDirectory(debezium)) {
        Path target = pluginsDir.resolve(DEBEZIUM_POSTGRES);
        deleteTree(target);
        copyTree(debezium, target);
        if (installed.isEmpty()) {
          installed.add(pluginsDir);
        }
      }
    } catch (IOException e) {
      throw new PlatformException(
          "Cannot install the connector plugins into " + pluginsDir + ": " + e.getMessage(), e);
    }
    return installed;
  }

  private static void unzip(Path zip, Path into) throws IOException {
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
      for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
        Path target = into.resolve(entry.getName()).normalize();
        if (!target.startsWith(into)) {
          throw new IOException(zip + " holds an entry outside its folder: " + entry.getName());
        }
        if (entry.isDirectory()) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.walkFileTree(
        from,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            Files.createDirectories(to.resolve(from.relativize(dir).toString()));
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            try (InputStream in = Files.newInputStream(file)) {
              Files.copy(in, to.resolve(from.relativize(file).toString()));
            }
            return FileVisitResult.CONTINUE;
          }
        });
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
            Files.delete(d);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
