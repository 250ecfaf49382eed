package io.changelake.console.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowType;

/**
 * Reads Paimon tables into rows of plain values (strings, numbers, booleans) for JSON: the system
 * tables ({@code t$snapshots}, {@code t$schemas}, {@code t$files}, {@code t$consumers}), which hold
 * metadata only, and the first rows of a data table for the preview.
 */
final class SystemTables {
  private SystemTables() {}

  /** All rows of system table {@code table$name}. */
  static List<Map<String, Object>> read(Catalog catalog, Identifier table, String name) {
    try {
      Table system =
          catalog.getTable(
              new Identifier(table.getDatabaseName(), table.getObjectName() + "$" + name));
      return rows(system, Integer.MAX_VALUE);
    } catch (Catalog.TableNotExistException e) {
      throw new IllegalArgumentException("No table " + table.getFullName() + " in the lake", e);
    }
  }

  /** The first {@code limit} rows of {@code table}. */
  static List<Map<String, Object>> rows(Table table, int limit) {
    ReadBuilder read = table.newReadBuilder();
    if (limit < Integer.MAX_VALUE) {
      read = read.withLimit(limit);
    }
    RowType type = read.readType();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < type.getFieldCount(); i++) {
      getters.add(InternalRow.createFieldGetter(type.getTypeAt(i), i));
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader = read.newRead().createReader(read.newScan().plan())) {
      RecordReader.RecordIterator<InternalRow> batch;
      while (rows.size() < limit && (batch = reader.readBatch()) != null) {
        InternalRow row;
        while (rows.size() < limit && (row = batch.next()) != null) {
          Map<String, Object> values = new LinkedHashMap<>();
          for (int i = 0; i < getters.size(); i++) {
            values.put(type.getFieldNames().get(i), plain(getters.get(i).getFieldOrNull(row)));
          }
          rows.add(values);
        }
        batch.releaseBatch();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + table.name() + ": " + e.getMessage(), e);
    }
    return rows;
  }

  /** A JSON-friendly copy of a Paimon value (Paimon reuses its objects between rows). */
  static Object plain(Object value) {
    if (value == null || value instanceof Number || value instanceof Boolean) {
      return value;
    }
    if (value instanceof BinaryString s) {
      return s.toString();
    }
    if (value instanceof Timestamp t) {
      return t.toLocalDateTime().toString();
    }
    if (value instanceof Decimal d) {
      return d.toBigDecimal().toPlainString();
    }
    if (value instanceof byte[] bytes) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    return String.valueOf(value);
  }
}
