package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectorState;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Progress while deploy waits for one connector: a line each time its state changes, e.g. {@code
 * shop-lake-sink: connector RUNNING, tasks 1/2 RUNNING (task 1 UNASSIGNED) [4s]}. Unchanged polls
 * print nothing, so the output stays readable however long the wait.
 */
final class DeployProgress implements Consumer<ConnectorState> {
  private final PrintWriter out;
  private final long started = System.nanoTime();
  private String last;

  DeployProgress(PrintWriter out) {
    this.out = out;
  }

  @Override
  public void accept(ConnectorState state) {
    String line = summary(state);
    if (line.equals(last)) {
      return;
    }
    last = line;
    out.printf("  %s [%ds]%n", line, Duration.ofNanos(System.nanoTime() - started).toSeconds());
    out.flush();
  }

  static String summary(ConnectorState state) {
    List<ConnectorState.Task> tasks = state.tasks();
    long running = tasks.stream().filter(t -> ConnectorState.RUNNING.equals(t.state())).count();
    StringBuilder line =
        new StringBuilder(state.name())
            .append(": connector ")
            .append(state.connector().state())
            .append(", ");
    if (tasks.isEmpty()) {
      return line.append("no tasks yet").toString();
    }
    line.append("tasks ").append(running).append('/').append(tasks.size()).append(" RUNNING");
    List<String> others =
        tasks.stream()
            .filter(t -> !ConnectorState.RUNNING.equals(t.state()))
            .map(t -> "task " + t.id() + " " + t.state())
            .toList();
    if (!others.isEmpty()) {
      line.append(" (").append(String.join(", ", others)).append(')');
    }
    return line.toString();
  }
}
