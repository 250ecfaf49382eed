package io.changelake.sink.task;

import java.util.regex.Pattern;

/**
 * The Paimon commit users of one connector: {@code changelake-sink-<connector>-task-<id>} per task
 * (stable across restarts, so commit identifiers keep growing) and {@code
 * changelake-sink-<connector>-compactor}. Recognised exactly: a prefix test would take connector
 * {@code orders-eu}'s users for connector {@code orders}'s.
 */
final class CommitUsers {
  private final String connectorPrefix;
  private final Pattern task;
  private final Pattern any;

  CommitUsers(String connector) {
    this.connectorPrefix = "changelake-sink-" + connector + "-";
    this.task = Pattern.compile(Pattern.quote(connectorPrefix) + "task-\\d+");
    this.any = Pattern.compile(Pattern.quote(connectorPrefix) + "(task-\\d+|compactor)");
  }

  String task(int taskId) {
    return connectorPrefix + "task-" + taskId;
  }

  String compactor() {
    return connectorPrefix + "compactor";
  }

  /** A task of this connector (whose snapshots record offsets). */
  boolean isTask(String commitUser) {
    return task.matcher(commitUser).matches();
  }

  /** A task or the compactor of this connector. */
  boolean isConnectors(String commitUser) {
    return any.matcher(commitUser).matches();
  }
}
