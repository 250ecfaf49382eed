package io.changelake.e2e.paimon13;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;

/**
 * Prints the current state of one Paimon table as an engine on this class path's Paimon version
 * sees it: a line with the primary key and the columns ({@code name TYPE}), then one line per row,
 * sorted, values tab-separated in Paimon's own string forms. Two Paimon versions that read a table
 * alike print the same text.
 *
 * <p>Arguments of {@link #main}: warehouse URI, database, table; the dump goes to stdout, an error
 * ends the JVM with a stack trace and exit code 1.
 */
public final class TableDump {
  private TableDump() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    dump(args[0], args[1], args[2]).forEach(out::println);
  }

  /**
   * The dump of {@code database.table} in the warehouse at {@code warehouse}, read with whichever
   * Paimon is on the class path: the schema line, then the sorted rows.
   */
  public static List<String> dump(String warehouse, String database, String tableName)
      throws Exception {
    Options options = Options.fromMap(Map.of("warehouse", warehouse, "cache-enabled", "false"));
    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      Table table = catalog.getTable(Identifier.create(database, tableName));
      List<String> columns = new ArrayList<>();
      for (DataField field : table.rowType().getFields()) {
        columns.add(field.name() + " " + field.type().asSQLString());
      }
      List<String> rows = rows(table);
      Collections.sort(rows);
      List<String> lines = new ArrayList<>();
      lines.add("key " + table.primaryKeys() + " columns " + columns);
      lines.addAll(rows);
      return lines;
    }
  }

  private static List<String> rows(Table table) throws Exception {
    List<DataField> fields = table.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
    }
    ReadBuilder read = table.newReadBuilder();
    List<String> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> {
            StringBuilder line = new StringBuilder(row.getRowKind().shortString());
            for (InternalRow.FieldGetter getter : getters) {
              line.append('\t').append(text(getter.getFieldOrNull(row)));
            }
            rows.add(line.toString());
          });
    }
    return rows;
  }

  private static String text(Object value) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof byte[] bytes) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    // BinaryString, Decimal and Timestamp print their SQL values; nested types are not dumped
    return value.toString();
  }
}
