package io.changelake.e2e.changelog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Applies Debezium-style change events (JSON with schemas, as JsonConverter writes them) key by key
 * and checks that they chain: a create only for an absent key, an update or delete only for a
 * present key and, when the event carries a before image, only from exactly the state the previous
 * events left. A lost event or a duplicate breaks the chain, so an empty {@link #violations()}
 * means every change arrived exactly once.
 */
public final class ChangelogReplay {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_VIOLATIONS = 20;

  private final Map<String, JsonNode> state = new LinkedHashMap<>();
  private final List<String> violations = new ArrayList<>();
  private int violationCount;
  private long events;

  /** Replays records in topic order (per partition; keys never span partitions). */
  public static ChangelogReplay of(List<ConsumerRecord<byte[], byte[]>> records) {
    ChangelogReplay replay = new ChangelogReplay();
    records.forEach(replay::apply);
    return replay;
  }

  public void apply(ConsumerRecord<byte[], byte[]> record) {
    if (record.value() == null) {
      return; // tombstone after a delete, for log compaction
    }
    events++;
    JsonNode payload = read(record.value()).path("payload");
    String key = read(record.key()).path("payload").toString();
    String op = payload.path("op").asText();
    JsonNode before = payload.path("before");
    JsonNode after = payload.path("after");
    JsonNode current = state.get(key);
    String where = record.topic() + "-" + record.partition() + "@" + record.offset();
    switch (op) {
      case "c", "r" -> {
        if (current != null) {
          violation(where, key, op + " for a key that exists (duplicate?) current " + current);
        }
        state.put(key, after);
      }
      case "u" -> {
        if (current == null) {
          violation(where, key, "update of an absent key (create lost?)");
        } else if (!before.isMissingNode() && !before.isNull() && !before.equals(current)) {
          violation(where, key, "update from " + before + " but the state was " + current);
        }
        state.put(key, after);
      }
      case "d" -> {
        if (current == null) {
          violation(where, key, "delete of an absent key (duplicate delete or lost create?)");
        } else if (!before.isMissingNode() && !before.isNull() && !before.equals(current)) {
          violation(where, key, "delete from " + before + " but the state was " + current);
        }
        state.remove(key);
      }
      default -> violation(where, key, "unknown op '" + op + "'");
    }
  }

  /** Key (the key payload as JSON text) -> row (the after payload) after every event. */
  public Map<String, JsonNode> state() {
    return state;
  }

  public long events() {
    return events;
  }

  /** The first violations found, each naming topic-partition@offset and key; empty when none. */
  public List<String> violations() {
    List<String> out = new ArrayList<>(violations);
    if (violationCount > violations.size()) {
      out.add("… " + (violationCount - violations.size()) + " more");
    }
    return out;
  }

  private void violation(String where, String key, String what) {
    violationCount++;
    if (violations.size() < MAX_VIOLATIONS) {
      violations.add(where + " key " + key + ": " + what);
    }
  }

  private static JsonNode read(byte[] bytes) {
    try {
      return JSON.readTree(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + new String(bytes), e);
    }
  }
}
