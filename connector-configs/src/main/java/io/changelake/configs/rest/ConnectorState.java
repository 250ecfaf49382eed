package io.changelake.configs.rest;

import java.util.List;
import java.util.Optional;

/**
 * What {@code GET /connectors/{name}/status} says.
 *
 * @param name connector name
 * @param type {@code source} or {@code sink}
 * @param connector the connector instance's state
 * @param tasks each task's state, ordered by task id
 */
public record ConnectorState(String name, String type, Instance connector, List<Task> tasks) {

  public ConnectorState {
    tasks = List.copyOf(tasks);
  }

  /** State of the connector instance. */
  public record Instance(String state, String workerId, Optional<String> trace) {}

  /** State of one task. */
  public record Task(int id, String state, String workerId, Optional<String> trace) {}

  public static final String RUNNING = "RUNNING";
  public static final String FAILED = "FAILED";
  public static final String PAUSED = "PAUSED";
  public static final String STOPPED = "STOPPED";

  /** True when the connector or any task failed. */
  public boolean anyFailed() {
    return FAILED.equals(connector.state())
        || tasks.stream().anyMatch(t -> FAILED.equals(t.state()));
  }

  /** True when the connector and at least one task run, and no task is in another state. */
  public boolean fullyRunning() {
    return RUNNING.equals(connector.state())
        && !tasks.isEmpty()
        && tasks.stream().allMatch(t -> RUNNING.equals(t.state()));
  }
}
