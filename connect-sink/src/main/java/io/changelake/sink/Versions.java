package io.changelake.sink;

/** The version reported to Connect. */
public final class Versions {
  public static final String VERSION = version();

  private Versions() {}

  private static String version() {
    String v = Versions.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }
}
