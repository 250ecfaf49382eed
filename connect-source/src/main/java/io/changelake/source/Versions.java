package io.changelake.source;

import io.changelake.schema.PluginVersion;

/** The version of this plugin, as built by Maven. */
public final class Versions {
  public static final String VERSION = PluginVersion.of(Versions.class);

  private Versions() {}
}
