package io.changelake.sink;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version of this plugin as built by Maven, reported to Connect by the connector, its tasks,
 * the converter and the predicate. Read from {@code version.properties} (filtered by the build), so
 * it is right also where no jar manifest is at hand (classes run from a folder); the jar's manifest
 * carries the same value as {@code Implementation-Version} for tools that read manifests.
 */
public final class Versions {
  public static final String VERSION = load();

  private Versions() {}

  private static String load() {
    try (InputStream in = Versions.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IllegalStateException("version.properties is missing from the plugin jar");
      }
      Properties props = new Properties();
      props.load(in);
      return props.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
