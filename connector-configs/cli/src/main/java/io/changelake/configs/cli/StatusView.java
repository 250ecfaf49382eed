package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectorState;
import java.util.List;

/**
 * A connector's status as {@code -o json} prints it (status, deploy, offsets): Connect's own field
 * names, {@code trace} null unless the instance failed.
 */
record StatusView(
    String name, String type, String state, String workerId, String trace, List<Task> tasks) {

  record Task(int id, String state, String workerId, String trace) {}

  static StatusView of(ConnectorState state) {
    return new StatusView(
        state.name(),
        state.type(),
        state.connector().state(),
        state.connector().workerId(),
        state.connector().trace().orElse(null),
        state.tasks().stream()
            .map(t -> new Task(t.id(), t.state(), t.workerId(), t.trace().orElse(null)))
            .toList());
  }
}
