package io.changelake.configs.lake;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;

/**
 * Reads every row of a Paimon table (here: its system tables such as {@code t$snapshots}) into maps
 * keyed by Paimon's own column names, values as JSON-friendly Java values: numbers and booleans as
 * they are, strings and timestamps as text.
 */
final class SystemTableRows {
  private SystemTableRows() {}

  static List<Map<String, Object>> read(Table table) throws IOException {
    List<DataField> fields = table.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
    }
    ReadBuilder read = table.newReadBuilder();
    List<Map<String, Object>> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> {
            Map<String, Object> values = new LinkedHashMap<>();
            for (int i = 0; i < fields.size(); i++) {
              values.put(fields.get(i).name(), plain(getters.get(i).getFieldOrNull(row)));
            }
            rows.add(values);
          });
    }
    return rows;
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
