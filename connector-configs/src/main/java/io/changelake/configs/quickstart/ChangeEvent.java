package io.changelake.configs.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.schema.debezium.EnvelopeFields;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A change event as a person reads it: the operation and the row before and after, from a
 * JsonConverter-encoded Debezium-style envelope.
 *
 * @param op c (insert), r (read), u (update), d (delete), or "tombstone"
 * @param before the old row, compact, or empty
 * @param after the new row, compact, or empty
 */
record ChangeEvent(String op, String before, String after) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static ChangeEvent parse(byte[] value) throws IOException {
    if (value == null) {
      return new ChangeEvent("tombstone", "", "");
    }
    JsonNode root = JSON.readTree(value);
    JsonNode payload = root.has("payload") && root.has("schema") ? root.get("payload") : root;
    return new ChangeEvent(
        payload.path(EnvelopeFields.OP).asText("?"),
        compact(payload.get(EnvelopeFields.BEFORE)),
        compact(payload.get(EnvelopeFields.AFTER)));
  }

  /** {@code {id=1, name=Ada}} without internal columns, or empty for null. */
  private static String compact(JsonNode row) {
    if (row == null || row.isNull()) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    Iterator<Map.Entry<String, JsonNode>> fields = row.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (!field.getKey().startsWith("_changelake_")) {
        parts.add(
            field.getKey()
                + "="
                + (field.getValue().isNull() ? "null" : field.getValue().asText()));
      }
    }
    return "{" + String.join(", ", parts) + "}";
  }

  String describe() {
    if (op.equals("tombstone")) {
      return "tombstone (key only, for log compaction)";
    }
    DebeziumOp operation;
    try {
      operation = DebeziumOp.fromCode(op);
    } catch (IllegalArgumentException e) {
      return op + "  " + before + " " + after;
    }
    return switch (operation) {
      case CREATE -> "insert  " + after;
      case READ -> "read    " + after;
      case UPDATE -> "update  " + (before.isEmpty() ? "" : before + " -> ") + after;
      case DELETE -> "delete  " + before;
      case TRUNCATE -> "truncate";
    };
  }
}
