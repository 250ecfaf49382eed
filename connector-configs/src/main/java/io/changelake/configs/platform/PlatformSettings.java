package io.changelake.configs.platform;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How to run the embedded platform.
 *
 * @param stateDir where the broker's log, Connect's plugins and the lake live; kept across restarts
 * @param kafkaPort the broker's client port on 127.0.0.1
 * @param controllerPort the KRaft controller's port on 127.0.0.1
 * @param connectPort the Connect REST port on 127.0.0.1
 * @param pluginDirs plugin directories to put on the worker's {@code plugin.path} (each holds one
 *     plugin or several plugin directories)
 * @param workerOverrides extra worker properties, winning over the defaults
 */
public record PlatformSettings(
    Path stateDir,
    int kafkaPort,
    int controllerPort,
    int connectPort,
    List<Path> pluginDirs,
    Map<String, String> workerOverrides) {

  public PlatformSettings {
    pluginDirs = List.copyOf(pluginDirs);
    workerOverrides = Map.copyOf(workerOverrides);
  }

  public Path kafkaLogDir() {
    return stateDir.resolve("kafka");
  }

  public Path pluginsDir() {
    return stateDir.resolve("plugins");
  }

  /** Where the Changelake connectors keep their tables, by convention. */
  public Path warehouse() {
    return stateDir.resolve("lake");
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + kafkaPort;
  }

  public String connectUrl() {
    return "http://127.0.0.1:" + connectPort;
  }
}
