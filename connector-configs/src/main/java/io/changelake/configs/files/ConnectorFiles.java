package io.changelake.configs.files;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Reads connector files: single JSON files, or every {@code *.json} directly in a directory. */
public final class ConnectorFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ConnectorFiles() {}

  /** Reads all files behind {@code paths}; fails on duplicate connector names. */
  public static List<ConnectorFile> load(List<Path> paths) {
    List<ConnectorFile> files = new ArrayList<>();
    for (Path path : paths) {
      for (Path file : expand(path)) {
        files.add(read(file));
      }
    }
    Map<String, Path> seen = new HashMap<>();
    for (ConnectorFile file : files) {
      Path earlier = seen.putIfAbsent(file.name(), file.source());
      if (earlier != null) {
        throw new ConnectorFileException(
            "Connector name '"
                + file.name()
                + "' is declared twice: in "
                + earlier
                + " and in "
                + file.source()
                + ". Connector names must be unique on a Connect cluster.");
      }
    }
    return files;
  }

  /** Reads one file. */
  public static ConnectorFile read(Path file) {
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new ConnectorFileException("Cannot read " + file + " as JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new ConnectorFileException(
          file + " must hold one JSON object {\"name\": ..., \"config\": {...}}");
    }
    JsonNode config = root.get("config");
    if (config == null || !config.isObject()) {
      throw new ConnectorFileException(
          file
              + " has no \"config\" object. Use the Connect REST format: {\"name\": \"my-connector\","
              + " \"config\": {\"connector.class\": ...}}");
    }
    String name = root.path("name").asText(config.path("name").asText(""));
    if (name.isBlank()) {
      throw new ConnectorFileException(file + " has no \"name\": give the connector a name.");
    }
    Map<String, String> values = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> fields = config.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      JsonNode value = field.getValue();
      if (value.isContainerNode()) {
        throw new ConnectorFileException(
            file
                + ": config key '"
                + field.getKey()
                + "' holds a JSON "
                + (value.isArray() ? "array" : "object")
                + "; Connect configs are flat: write lists as comma-separated strings.");
      }
      values.put(field.getKey(), value.isNull() ? null : value.asText());
    }
    if (!values.containsKey("connector.class")) {
      throw new ConnectorFileException(file + ": config has no \"connector.class\".");
    }
    String inner = values.get("name");
    if (inner != null && !inner.equals(name)) {
      throw new ConnectorFileException(
          file
              + ": \"name\" is '"
              + name
              + "' but config.name is '"
              + inner
              + "'; make them equal.");
    }
    return new ConnectorFile(file, name, values);
  }

  private static List<Path> expand(Path path) {
    if (!Files.exists(path)) {
      throw new ConnectorFileException("No such file or directory: " + path);
    }
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    try (Stream<Path> children = Files.list(path)) {
      List<Path> json =
          children
              .filter(p -> p.getFileName().toString().endsWith(".json"))
              .filter(Files::isRegularFile)
              .sorted()
              .toList();
      if (json.isEmpty()) {
        throw new ConnectorFileException("No *.json connector files in " + path);
      }
      return json;
    } catch (IOException e) {
      throw new ConnectorFileException("Cannot list " + path + ": " + e.getMessage(), e);
    }
  }
}
