package io.changelake.configs.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/** Prints rows as aligned columns under a header, for the text output of the lake commands. */
final class TextTable {
  private TextTable() {}

  /** Prints {@code columns} of {@code rows} (missing or null values as "-"), indented by two. */
  static void print(PrintWriter out, List<String> columns, List<Map<String, Object>> rows) {
    List<Integer> widths = new ArrayList<>();
    for (String column : columns) {
      int width = column.length();
      for (Map<String, Object> row : rows) {
        width = Math.max(width, cell(row, column).length());
      }
      widths.add(width);
    }
    out.println(line(columns, widths, columns::get));
    out.println(line(columns, widths, i -> "-".repeat(widths.get(i))));
    for (Map<String, Object> row : rows) {
      out.println(line(columns, widths, i -> cell(row, columns.get(i))));
    }
    out.flush();
  }

  private static String line(List<String> columns, List<Integer> widths, IntFunction<String> cell) {
    StringBuilder line = new StringBuilder("  ");
    for (int i = 0; i < columns.size(); i++) {
      line.append(String.format("%-" + widths.get(i) + "s  ", cell.apply(i)));
    }
    return line.toString().stripTrailing();
  }

  private static String cell(Map<String, Object> row, String column) {
    Object value = row.get(column);
    return value == null ? "-" : String.valueOf(value);
  }
}
