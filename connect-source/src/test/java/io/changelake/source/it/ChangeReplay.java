package io.changelake.source.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.connect.data.Struct;

/** Applies change events to an empty table held in memory, as a downstream consumer would. */
final class ChangeReplay {
  private ChangeReplay() {}

  /** id -> values of {@code columns}, after applying every envelope event in order. */
  static Map<Integer, List<Object>> replay(
      List<ConnectFixture.Event> events, List<String> columns) {
    Map<Integer, List<Object>> rows = new TreeMap<>();
    for (ConnectFixture.Event event : events) {
      if (event.tombstone()) {
        continue;
      }
      switch (event.op()) {
        case "c", "u", "r" -> rows.put(event.id(), values(event.after(), columns));
        case "d" -> rows.remove(event.id());
        default -> throw new IllegalStateException("unknown op " + event.op());
      }
    }
    return rows;
  }

  static List<Object> values(Struct row, List<String> columns) {
    List<Object> values = new ArrayList<>();
    for (String column : columns) {
      values.add(row.schema().field(column) == null ? null : row.get(column));
    }
    return values;
  }
}
