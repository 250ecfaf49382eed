package io.changelake.source;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The version of this plugin, as built by Maven. */
public final class Versions {
  public static final String CONNECTOR_VERSION = load();

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
