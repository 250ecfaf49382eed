package io.changelake.configs.files;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One connector as declared in a JSON file in the Connect REST format: {@code {"name": ...,
 * "config": {...}}}. Config-provider references such as {@code ${env:PGPASSWORD}} are kept as
 * written: the worker resolves them.
 *
 * @param source the file it came from
 * @param name the connector name
 * @param config the config, in file order, every value a string
 */
public record ConnectorFile(Path source, String name, Map<String, String> config) {

  public ConnectorFile {
    config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
  }

  public String connectorClass() {
    return config.getOrDefault("connector.class", "");
  }

  /** The config as sent to Connect: the {@code name} key always matches the connector name. */
  public Map<String, String> configToSend() {
    Map<String, String> sent = new LinkedHashMap<>(config);
    sent.put("name", name);
    return sent;
  }
}
