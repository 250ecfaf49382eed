package io.changelake.lsm.table;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;

/**
 * Every row of a Paimon table (a data table or a system table such as {@code t$snapshots}) as a map
 * from column name to value, for tools that show tables to people. Paimon reuses its value objects
 * between rows, so each value goes through {@code value} (which must copy or convert it) before the
 * next row is read.
 */
public final class TableRows {
  private TableRows() {}

  /** The rows, with the columns {@code column} accepts, in the table's column order. */
  public static List<Map<String, Object>> read(
      Table table, Predicate<String> column, Function<Object, Object> value) throws IOException {
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
              if (column.test(fields.get(i).name())) {
                values.put(fields.get(i).name(), value.apply(getters.get(i).getFieldOrNull(row)));
              }
            }
            rows.add(values);
          });
    }
    return rows;
  }
}
