package io.changelake.configs.cli;

import java.nio.file.Path;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;

/** Sends the embedded broker's and worker's logs to a file, keeping the terminal readable. */
final class Logs {
  static final String DIR_PROPERTY = "changelake.log.dir";

  private Logs() {}

  static Path file(Path stateDir) {
    return stateDir.resolve("logs").resolve("changelake.log");
  }

  static void toFile(Path stateDir) {
    System.setProperty(DIR_PROPERTY, stateDir.resolve("logs").toString());
    if (LogManager.getContext(false) instanceof LoggerContext context) {
      context.reconfigure();
    }
  }
}
