package io.changelake.console.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns the rows of {@code t$schemas} into versions with their diff to the version before. */
final class SchemaHistory {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SchemaHistory() {}

  static List<TableView.SchemaVersion> of(List<Map<String, Object>> schemaRows) {
    List<TableView.SchemaVersion> versions = new ArrayList<>();
    Map<String, String> before = Map.of();
    List<Map<String, Object>> sorted = new ArrayList<>(schemaRows);
    sorted.sort((a, b) -> Long.compare(number(a, "schema_id"), number(b, "schema_id")));
    for (Map<String, Object> row : sorted) {
      Map<String, String> columns = columns(String.valueOf(row.get("fields")));
      Map<String, String> previous = before;
      List<String> added = new ArrayList<>();
      List<String> changed = new ArrayList<>();
      columns.forEach(
          (name, type) -> {
            String old = previous.get(name);
            if (old == null) {
              added.add(name + " " + type);
            } else if (!old.equals(type)) {
              changed.add(name + ": " + old + " -> " + type);
            }
          });
      List<String> removed =
          previous.keySet().stream().filter(name -> !columns.containsKey(name)).toList();
      versions.add(
          new TableView.SchemaVersion(
              number(row, "schema_id"),
              String.valueOf(row.get("update_time")),
              columns.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList(),
              versions.isEmpty() ? List.of() : added,
              removed,
              changed));
      before = columns;
    }
    return versions;
  }

  /** Column name to type, in order, from the {@code fields} JSON of a schema row. */
  static Map<String, String> columns(String fieldsJson) {
    try {
      Map<String, String> columns = new LinkedHashMap<>();
      for (JsonNode field : JSON.readTree(fieldsJson)) {
        JsonNode type = field.path("type");
        columns.put(
            field.path("name").asText(), type.isTextual() ? type.asText() : type.toString());
      }
      return columns;
    } catch (IOException e) {
      throw new UncheckedIOException("Unreadable schema fields " + fieldsJson, e);
    }
  }

  static long number(Map<String, Object> row, String column) {
    Object value = row.get(column);
    return value instanceof Number n ? n.longValue() : -1;
  }
}
