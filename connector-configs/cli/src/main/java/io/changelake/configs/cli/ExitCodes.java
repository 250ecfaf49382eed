package io.changelake.configs.cli;

/** Exit codes of every changelake command, for scripts. Listed in {@code --help}. */
public final class ExitCodes {
  /** Done; every connector involved is healthy. */
  public static final int OK = 0;

  /** A connector or task failed, validation found errors, or a deploy did not come up. */
  public static final int FAILED = 1;

  /** Bad command line, or a connector file that cannot be read. */
  public static final int USAGE = 2;

  /** Kafka Connect could not be reached or answered with an unexpected error. */
  public static final int CONNECT_ERROR = 3;

  /** A named connector does not exist. */
  public static final int NOT_FOUND = 4;

  /** The connector did not reach the expected state within --timeout. */
  public static final int TIMEOUT = 5;

  /** plan --detailed-exitcode: deploying would change something. */
  public static final int CHANGES_PENDING = 6;

  private ExitCodes() {}

  /** The table shown at the end of every {@code --help}. */
  static final String HELP_TABLE =
      """
      Exit codes:
        0  done; every connector involved is healthy
        1  a connector or task FAILED, validation found errors, or deploy failed
        2  bad command line, or an unreadable/invalid connector file
        3  Kafka Connect unreachable, or an unexpected answer (401, 409, 5xx)
        4  a named connector does not exist
        5  timed out waiting for the connector to reach the expected state
        6  plan --detailed-exitcode: deploying would change something""";
}
