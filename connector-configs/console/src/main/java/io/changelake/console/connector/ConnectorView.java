package io.changelake.console.connector;

import java.util.List;

/**
 * One connector as the console shows it: secrets already masked.
 *
 * @param name connector name
 * @param type {@code source} or {@code sink}
 * @param role its part in a pipeline
 * @param connectorClass {@code connector.class}
 * @param state the connector instance's state
 * @param worker the worker running the instance
 * @param trace the instance's error trace, secrets masked; null unless failed
 * @param tasks each task's state
 * @param config the stored config, secrets masked
 * @param topics topics it produced to or consumed from (KIP-558)
 * @param actionsEnabled whether this console may pause, resume and restart it
 */
public record ConnectorView(
    String name,
    String type,
    String role,
    String connectorClass,
    String state,
    String worker,
    String trace,
    List<TaskView> tasks,
    List<ConfigEntry> config,
    List<String> topics,
    boolean actionsEnabled) {

  /** One task: its trace (secrets masked) is null unless it failed. */
  public record TaskView(int id, String state, String worker, String trace) {}

  /** One config key; {@code masked} when the value shown is not the stored one. */
  public record ConfigEntry(String key, String value, boolean masked) {}
}
