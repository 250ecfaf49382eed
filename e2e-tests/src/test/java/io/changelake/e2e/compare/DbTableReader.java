package io.changelake.e2e.compare;

import io.changelake.testkit.postgres.PostgresServer;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a PostgreSQL table with its column types and primary key, for comparing with the lake. */
public final class DbTableReader {
  private DbTableReader() {}

  /**
   * A column: its PostgreSQL type name as JDBC reports it ({@code int4}, {@code _text}, an enum's
   * name), its declared type as PostgreSQL spells it ({@code format_type}: {@code integer}, {@code
   * numeric(12,3)}, {@code timestamp without time zone}, {@code integer[]}; {@code enum} and {@code
   * enum[]} for user-defined enums) and whether it is NOT NULL.
   */
  public record Column(String name, String pgType, String declaredType, boolean notNull) {
    /** The column of one element of this array column. */
    public Column element() {
      if (!pgType.startsWith("_") || !declaredType.endsWith("[]")) {
        throw new IllegalStateException(name + " is not an array column: " + declaredType);
      }
      return new Column(
          name, pgType.substring(1), declaredType.substring(0, declaredType.length() - 2), false);
    }
  }

  /** All rows of a table, raw JDBC values converted to java.time where PostgreSQL allows it. */
  public record Contents(
      String name, List<Column> columns, List<String> primaryKey, List<Map<String, Object>> rows) {}

  /** Reads {@code schema.table} of {@code database}, keyed by its primary key. */
  public static Contents read(PostgresServer pg, String database, String schema, String table) {
    return read(pg, database, schema, table, List.of());
  }

  /**
   * Reads {@code schema.table} (a table or a view) of {@code database}, keyed by {@code key}, or by
   * the table's primary key when {@code key} is empty.
   */
  public static Contents read(
      PostgresServer pg, String database, String schema, String table, List<String> key) {
    String qualified = "\"" + schema + "\".\"" + table + "\"";
    try (Connection c = pg.connect(database)) {
      if (key.isEmpty()) {
        key = primaryKey(c, schema, table);
      }
      Map<String, Column> declared = declaredColumns(c, schema, table);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT * FROM " + qualified)) {
        ResultSetMetaData md = rs.getMetaData();
        List<Column> columns = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          Column d = declared.get(md.getColumnName(i));
          columns.add(
              new Column(
                  md.getColumnName(i),
                  md.getColumnTypeName(i),
                  d == null ? md.getColumnTypeName(i) : d.declaredType(),
                  d != null && d.notNull()));
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int i = 1; i <= columns.size(); i++) {
            row.put(columns.get(i - 1).name(), value(rs, i, columns.get(i - 1).pgType()));
          }
          rows.add(row);
        }
        return new Contents(database + "." + schema + "." + table, columns, key, rows);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read " + database + "." + qualified, e);
    }
  }

  /** Whether {@code schema.table} exists in {@code database}. */
  public static boolean exists(PostgresServer pg, String database, String schema, String table) {
    try (Connection c = pg.connect(database);
        PreparedStatement ps =
            c.prepareStatement("SELECT to_regclass(quote_ident(?) || '.' || quote_ident(?))")) {
      ps.setString(1, schema);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1) != null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot look up " + database + "." + schema + "." + table, e);
    }
  }

  private static Object value(ResultSet rs, int i, String pgType) throws SQLException {
    Object raw = rs.getObject(i);
    if (raw == null) {
      return null;
    }
    switch (pgType) {
      case "date":
        return rs.getObject(i, LocalDate.class);
      case "time":
        return rs.getObject(i, LocalTime.class);
      case "timestamp":
        return rs.getObject(i, LocalDateTime.class);
      case "timestamptz":
        return rs.getObject(i, OffsetDateTime.class);
      case "json":
      case "jsonb":
        return rs.getString(i);
      default:
        if (raw instanceof Array a) {
          return a.getArray();
        }
        if (raw instanceof org.postgresql.util.PGobject o
            && !(raw instanceof org.postgresql.util.PGInterval)) {
          // enums and other user types: their text
          return o.getValue();
        }
        return raw;
    }
  }

  /** Declared type and NOT NULL of every column, by name, as the catalog has them. */
  private static Map<String, Column> declaredColumns(Connection c, String schema, String table)
      throws SQLException {
    String sql =
        "SELECT a.attname, a.attnotnull, format_type(a.atttypid, a.atttypmod),"
            + " t.typtype = 'e', coalesce(e.typtype = 'e', false)"
            + " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
            + " LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'"
            + " WHERE a.attrelid = (quote_ident(?) || '.' || quote_ident(?))::regclass"
            + " AND a.attnum > 0 AND NOT a.attisdropped";
    Map<String, Column> out = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, schema);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          // enums are keyed by kind, not by their user-chosen names
          String declared =
              rs.getBoolean(4) ? "enum" : rs.getBoolean(5) ? "enum[]" : rs.getString(3);
          out.put(rs.getString(1), new Column(rs.getString(1), null, declared, rs.getBoolean(2)));
        }
      }
    }
    return out;
  }

  private static List<String> primaryKey(Connection c, String schema, String table)
      throws SQLException {
    String sql =
        "SELECT a.attname FROM pg_index i"
            + " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
            + " WHERE i.indrelid = (quote_ident(?) || '.' || quote_ident(?))::regclass"
            + " AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)";
    List<String> key = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, schema);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          key.add(rs.getString(1));
        }
      }
    }
    if (key.isEmpty()) {
      throw new IllegalStateException(schema + "." + table + " has no primary key to compare by");
    }
    return key;
  }
}
