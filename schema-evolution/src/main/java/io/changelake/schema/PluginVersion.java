package io.changelake.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version a connector module was built as, read from the {@code version.properties} its build
 * filters next to the given class (so it is right also where no jar manifest is at hand, classes
 * run from a folder); the jar's manifest carries the same value as {@code Implementation-Version}
 * for tools that read manifests. Both connectors report it to Connect.
 */
public final class PluginVersion {
  private PluginVersion() {}

  /** The {@code version} of the {@code version.properties} beside {@code anchor}. */
  public static String of(Class<?> anchor) {
    try (InputStream in = anchor.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IllegalStateException(
            "version.properties is missing beside " + anchor.getName() + " in the plugin jar");
      }
      Properties props = new Properties();
      props.load(in);
      return props.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
