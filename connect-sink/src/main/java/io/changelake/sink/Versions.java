package io.changelake.sink;

import io.changelake.schema.PluginVersion;

/**
 * The version of this plugin as built by Maven, reported to Connect by the connector, its tasks,
 * the converter and the predicate.
 */
public final class Versions {
  public static final String VERSION = PluginVersion.of(Versions.class);

  private Versions() {}
}
