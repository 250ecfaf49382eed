package io.changelake.configs.lake;

import io.changelake.lsm.table.TableRows;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.table.Table;

/**
 * Reads every row of a Paimon table (here: its system tables such as {@code t$snapshots}) into maps
 * keyed by Paimon's own column names, values as JSON-friendly Java values: numbers and booleans as
 * they are, strings and timestamps as text.
 */
final class SystemTableRows {
  private SystemTableRows() {}

  static List<Map<String, Object>> read(Table table) throws IOException {
    return TableRows.read(table, column -> true, SystemTableRows::plain);
  }

  private static Object plain(Object value) {
    if (value == null
        || value instanceof Number
        || value instanceof Boolean
        || value instanceof String) {
      return value;
    }
    if (value instanceof BinaryString || value instanceof Timestamp) {
      return value.toString();
    }
    // arrays and maps (e.g. the null counts of $files) stay readable as text
    return String.valueOf(value);
  }
}
