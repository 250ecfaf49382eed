package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectorState;
import java.io.PrintWriter;
import java.util.Optional;

/** Prints a connector's state and its tasks, with the traces of failed ones. */
final class StatusPrinter {
  /** Lines of a trace shown unless the full trace is asked for. */
  static final int TRACE_LINES = 25;

  private StatusPrinter() {}

  static void print(PrintWriter out, ConnectorState state, boolean fullTraces) {
    out.printf(
        "%s (%s): %s on %s%n",
        state.name(), state.type(), state.connector().state(), state.connector().workerId());
    printTrace(out, state.connector().trace(), "    ", fullTraces);
    if (state.tasks().isEmpty()) {
      out.println("  no tasks");
    }
    for (ConnectorState.Task task : state.tasks()) {
      out.printf("  task %-3d %-10s %s%n", task.id(), task.state(), task.workerId());
      if (ConnectorState.FAILED.equals(task.state())) {
        printTrace(out, task.trace(), "      ", fullTraces);
      }
    }
    out.flush();
  }

  private static void printTrace(
      PrintWriter out, Optional<String> trace, String indent, boolean full) {
    if (trace.isEmpty()) {
      return;
    }
    String[] lines = trace.get().split("\\R");
    int shown = full ? lines.length : Math.min(lines.length, TRACE_LINES);
    for (int i = 0; i < shown; i++) {
      out.println(indent + lines[i]);
    }
    if (shown < lines.length) {
      out.println(
          indent
              + "... "
              + (lines.length - shown)
              + " more lines (changelake status --trace shows all)");
    }
  }
}
