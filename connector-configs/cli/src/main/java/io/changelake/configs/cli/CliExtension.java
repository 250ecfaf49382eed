package io.changelake.configs.cli;

import io.changelake.configs.platform.PlatformSettings;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * A part of the CLI that lives in another module and is found through {@link ServiceLoader} ({@code
 * META-INF/services/io.changelake.configs.cli.CliExtension}): modules that depend on this one (the
 * console) cannot be named here without a dependency cycle.
 */
public interface CliExtension {

  /** A picocli command object (a class annotated with {@code @Command}) added under changelake. */
  Object command();

  /**
   * Called once {@code up} or {@code quickstart} has started the embedded platform: starts what
   * belongs to it (the console) and prints where it is. The returned handles are closed before the
   * platform stops.
   */
  default List<AutoCloseable> platformUp(PlatformSettings settings, PrintWriter out) {
    return List.of();
  }

  /** Every extension on the class path. */
  static List<CliExtension> installed() {
    List<CliExtension> found = new ArrayList<>();
    ServiceLoader.load(CliExtension.class, CliExtension.class.getClassLoader()).forEach(found::add);
    return found;
  }

  /** Calls {@link #platformUp} of every installed extension. */
  static List<AutoCloseable> startWithPlatform(PlatformSettings settings, PrintWriter out) {
    List<AutoCloseable> started = new ArrayList<>();
    for (CliExtension extension : installed()) {
      started.addAll(extension.platformUp(settings, out));
    }
    out.flush();
    return started;
  }

  /**
   * Closes what {@link #startWithPlatform} started, in reverse order, before the platform stops.
   */
  static void closeAll(List<AutoCloseable> started, PrintWriter out) {
    for (int i = started.size() - 1; i >= 0; i--) {
      try {
        started.get(i).close();
      } catch (Exception e) {
        // the platform must still stop: report and go on with the rest
        out.println("warning: could not stop " + started.get(i) + ": " + e);
      }
    }
  }
}
