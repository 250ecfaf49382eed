package io.changelake.console.connector;

import io.changelake.configs.files.Secrets;
import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ConnectorState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads connectors from the Connect REST API and masks what must not reach a browser: sensitive
 * config values (by {@link Secrets}' rules, the CLI's) and any literal secret quoted in a trace.
 */
public final class ConnectorReader {
  private final ConnectClient connect;
  private final boolean actionsEnabled;

  public ConnectorReader(ConnectClient connect, boolean actionsEnabled) {
    this.connect = connect;
    this.actionsEnabled = actionsEnabled;
  }

  public List<String> names() {
    List<String> names = new ArrayList<>(connect.connectors());
    names.sort(String::compareTo);
    return names;
  }

  /** The stored config, unmasked: for the console's own use, never to be sent. */
  public Map<String, String> rawConfig(String name) {
    return connect
        .config(name)
        .orElseThrow(() -> new ConnectRestException(404, "No connector named '" + name + "'"));
  }

  public ConnectorView read(String name) {
    Map<String, String> config = rawConfig(name);
    ConnectorState state = connect.status(name);
    List<String> topics;
    try {
      topics = connect.topics(name);
    } catch (ConnectRestException e) {
      // workers with topic tracking off (topic.tracking.enable=false) answer with an error
      topics = List.of();
    }
    return view(name, config, state, topics, actionsEnabled);
  }

  /** The view of one connector, from what Connect answered. */
  public static ConnectorView view(
      String name,
      Map<String, String> config,
      ConnectorState state,
      List<String> topics,
      boolean actionsEnabled) {
    List<ConnectorView.ConfigEntry> entries = new ArrayList<>();
    new TreeMap<>(config)
        .forEach(
            (key, value) -> {
              String shown = Secrets.display(key, value);
              entries.add(new ConnectorView.ConfigEntry(key, shown, !shown.equals(value)));
            });
    List<ConnectorView.TaskView> tasks =
        state.tasks().stream()
            .map(
                t ->
                    new ConnectorView.TaskView(
                        t.id(),
                        t.state(),
                        t.workerId(),
                        t.trace().map(trace -> Secrets.redact(trace, config)).orElse(null)))
            .toList();
    return new ConnectorView(
        name,
        state.type(),
        ConnectorRole.of(config, state.type()).label(),
        config.getOrDefault("connector.class", ""),
        state.connector().state(),
        state.connector().workerId(),
        state.connector().trace().map(trace -> Secrets.redact(trace, config)).orElse(null),
        tasks,
        entries,
        List.copyOf(topics),
        actionsEnabled);
  }
}
