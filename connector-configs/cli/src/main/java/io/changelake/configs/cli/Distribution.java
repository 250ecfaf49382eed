package io.changelake.configs.cli;

/**
 * Which parts of the CLI this installation has. The REST-only distribution ({@code
 * changelake-cli-<version>.tar.gz}) leaves out the broker, the Connect runtime and Debezium, and
 * keeps Paimon in the optional {@code lib/lake/}; commands needing a missing part say so instead of
 * failing with a {@code NoClassDefFoundError}.
 */
final class Distribution {
  static final String PLATFORM_CLASS = "org.apache.kafka.connect.cli.ConnectDistributed";
  static final String LAKE_CLASS = "org.apache.paimon.catalog.Catalog";

  private Distribution() {}

  /** Fails with a clear message when the embedded platform (Kafka, Connect) is not installed. */
  static void requirePlatform(String command) {
    if (!present(PLATFORM_CLASS)) {
      throw new MissingPartException(
          "'changelake "
              + command
              + "' runs Kafka and Connect in this process and needs the full CLI, which this"
              + " REST-only distribution leaves out. Build it from the repository with 'mvn -B -q"
              + " -DskipTests install' and run 'java -jar connector-configs/distribution/target/"
              + "changelake-cli.jar "
              + command
              + "'. This distribution deploys to and operates any running Connect cluster.");
    }
  }

  /** Fails with a clear message when Paimon (lib/lake/) is not installed. */
  static void requireLake() {
    if (!present(LAKE_CLASS)) {
      throw new MissingPartException(
          "'changelake lake' reads Paimon tables and needs the jars of lib/lake/, which this"
              + " installation does not have: unpack changelake-cli-lake-<version>.tar.gz into"
              + " the same folder as changelake-cli-<version>.tar.gz (it adds lib/lake/), or use"
              + " the full CLI (connector-configs/distribution/target/changelake-cli.jar).");
    }
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, Distribution.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** A command needs a part of the CLI this installation leaves out. */
  static final class MissingPartException extends RuntimeException {
    MissingPartException(String message) {
      super(message);
    }
  }
}
