package io.changelake.e2e.compare;

import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.postgres.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Compares a PostgreSQL table with a Paimon table (or with another PostgreSQL table, {@link
 * DbTable}) row by row, keyed by the database table's primary key, every database column checked
 * (values brought together by {@link Normalizer}). For a Paimon table the schema is checked too:
 * every database column's lake column must have the type and nullability {@link ExpectedLakeTypes}
 * lists for it. Columns only the lake has (platform bookkeeping, columns the database dropped) are
 * not compared.
 */
public final class TableComparison {
  private static final int MAX_REPORTED = 25;

  private TableComparison() {}

  /** Something that reads the rows of a table, named by its {@code toString()}. */
  public interface TableReader {
    List<Map<String, Object>> read();

    /** What the difference lines call this side ("lake", or e.g. "mirror" for a database). */
    default String side() {
      return "lake";
    }

    /**
     * The comparable form of a database value of {@code column}; the same method must bring this
     * side's values ({@link #normalize}) to the same form.
     */
    default Object reference(DbTableReader.Column column, Object value) {
      return Normalizer.database(column, value);
    }

    /** The comparable form of a value this side read for {@code column}: a lake's, strictly. */
    default Object normalize(DbTableReader.Column column, Object value) {
      return Normalizer.lake(column, value);
    }

    /** Column type differences of this side against {@code db}: none for a side without types. */
    default List<String> typeDifferences(DbTableReader.Contents db) {
      return List.of();
    }
  }

  /** Where a Paimon table lives. */
  public record LakeTable(Map<String, String> catalogOptions, String database, String table)
      implements TableReader {
    @Override
    public List<Map<String, Object>> read() {
      return LakeTableReader.read(catalogOptions, database, table);
    }

    @Override
    public List<String> typeDifferences(DbTableReader.Contents db) {
      return TableComparison.typeDifferences(
          db, LakeTableReader.rowType(catalogOptions, database, table));
    }

    @Override
    public String toString() {
      return "lake table " + database + "." + table;
    }
  }

  /**
   * A PostgreSQL table compared with another one (a mirror), called "mirror" in the differences.
   * Its values are read with its own column types and then normalised by the reference table's
   * types, exactly as lake values are. A table not created yet reads as empty, so waits go on until
   * whatever creates it has done so.
   */
  public record DbTable(PostgresServer pg, String database, String schema, String table)
      implements TableReader {
    @Override
    public List<Map<String, Object>> read() {
      if (!DbTableReader.exists(pg, database, schema, table)) {
        return List.of();
      }
      return DbTableReader.read(pg, database, schema, table).rows();
    }

    @Override
    public String side() {
      return "mirror";
    }

    @Override
    public Object reference(DbTableReader.Column column, Object value) {
      return Normalizer.mirror(column, value);
    }

    @Override
    public Object normalize(DbTableReader.Column column, Object value) {
      return Normalizer.mirror(column, value);
    }

    @Override
    public String toString() {
      return "mirror table " + database + "." + schema + "." + table;
    }
  }

  /**
   * Differences between the columns of {@code db} and the lake's {@code rowType}: each database
   * column's lake column must have exactly the type (nullability included) {@link
   * ExpectedLakeTypes} lists. A column missing from the lake is reported by the value comparison.
   */
  public static List<String> typeDifferences(
      DbTableReader.Contents db, org.apache.paimon.types.RowType rowType) {
    List<String> diffs = new ArrayList<>();
    Map<String, org.apache.paimon.types.DataField> lakeByLowerName = new TreeMap<>();
    rowType.getFields().forEach(f -> lakeByLowerName.put(f.name().toLowerCase(Locale.ROOT), f));
    for (DbTableReader.Column c : db.columns()) {
      org.apache.paimon.types.DataField f = lakeByLowerName.get(c.name().toLowerCase(Locale.ROOT));
      if (f == null) {
        continue;
      }
      var expected = ExpectedLakeTypes.of(c, db.primaryKey().contains(c.name()));
      if (expected.isEmpty()) {
        diffs.add(
            "column "
                + c.name()
                + " ("
                + c.declaredType()
                + "): no expected lake type in ExpectedLakeTypes, the lake has "
                + f.type().asSQLString());
      } else if (!expected.get().equals(f.type())) {
        diffs.add(
            "column "
                + c.name()
                + " ("
                + c.declaredType()
                + "): lake type "
                + f.type().asSQLString()
                + ", expected "
                + expected.get().asSQLString());
      }
    }
    return diffs;
  }

  /**
   * Value differences between the two tables, lake values read strictly ({@link Normalizer#lake}),
   * empty when equal; each entry is one readable line.
   */
  public static List<String> differences(
      DbTableReader.Contents db, List<Map<String, Object>> lakeRows) {
    return differences(db, lakeRows, new LakeTable(Map.of(), "", ""));
  }

  /** As above, values normalised and differences named as {@code side} says. */
  public static List<String> differences(
      DbTableReader.Contents db, List<Map<String, Object>> lakeRows, TableReader reader) {
    String side = reader.side();
    List<String> diffs = new ArrayList<>();
    Map<String, DbTableReader.Column> byLowerName = new TreeMap<>();
    db.columns().forEach(c -> byLowerName.put(c.name().toLowerCase(Locale.ROOT), c));

    Map<String, Map<String, Object>> dbByKey = new TreeMap<>();
    for (Map<String, Object> row : db.rows()) {
      Map<String, Object> normalized = new TreeMap<>();
      for (DbTableReader.Column c : db.columns()) {
        normalized.put(c.name(), reader.reference(c, row.get(c.name())));
      }
      dbByKey.put(key(db, normalized), normalized);
    }
    Map<String, Map<String, Object>> lakeByKey = new TreeMap<>();
    List<String> missingColumns = new ArrayList<>();
    for (Map<String, Object> raw : lakeRows) {
      Map<String, Object> lower = new TreeMap<>();
      raw.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
      Map<String, Object> row = new TreeMap<>();
      for (DbTableReader.Column c : db.columns()) {
        String name = c.name().toLowerCase(Locale.ROOT);
        if (!lower.containsKey(name)) {
          if (!missingColumns.contains(c.name())) {
            missingColumns.add(c.name());
          }
          continue;
        }
        try {
          row.put(c.name(), reader.normalize(c, lower.get(name)));
        } catch (RuntimeException e) {
          // the reason first: show() cuts long texts in the middle
          row.put(c.name(), "<unreadable: " + e.getMessage() + ">");
        }
      }
      String k = key(db, row);
      if (lakeByKey.put(k, row) != null) {
        diffs.add("key " + k + ": more than one row in the " + side);
      }
    }
    for (String c : missingColumns) {
      diffs.add("column " + c + ": missing in the " + side + " table");
    }
    int missingRows = 0;
    for (var e : dbByKey.entrySet()) {
      Map<String, Object> lake = lakeByKey.get(e.getKey());
      if (lake == null) {
        missingRows++;
        // full rows only for the first few: a table that is far behind would drown the report
        diffs.add(
            "key "
                + e.getKey()
                + ": missing in the "
                + side
                + (missingRows <= 3 ? "; database row " + show(e.getValue()) : ""));
        continue;
      }
      for (DbTableReader.Column c : db.columns()) {
        if (missingColumns.contains(c.name())) {
          continue;
        }
        Object dv = e.getValue().get(c.name());
        Object lv = lake.get(c.name());
        if (!Objects.equals(dv, lv)) {
          diffs.add(
              "key "
                  + e.getKey()
                  + " column "
                  + c.name()
                  + " ("
                  + c.pgType()
                  + "): database "
                  + Normalizer.show(dv)
                  + " "
                  + side
                  + " "
                  + Normalizer.show(lv));
        }
      }
    }
    for (var e : lakeByKey.entrySet()) {
      if (!dbByKey.containsKey(e.getKey())) {
        diffs.add(
            "key "
                + e.getKey()
                + ": in the "
                + side
                + " but not in the database "
                + show(e.getValue()));
      }
    }
    return diffs;
  }

  /**
   * Waits until the lake table equals the database table, failing with the last differences.
   * Polling is needed because the lake catches up asynchronously.
   */
  public static void awaitEqual(
      PostgresServer pg,
      String database,
      String schema,
      String table,
      LakeTable lake,
      Duration timeout) {
    awaitEqual(() -> DbTableReader.read(pg, database, schema, table), lake, timeout, () -> null);
  }

  /**
   * As above, watching {@code failure}: it returns null while the pipeline is healthy, else a
   * description (e.g. a failed task's trace) that ends the wait at once.
   */
  public static void awaitEqual(
      Supplier<DbTableReader.Contents> db,
      TableReader lake,
      Duration timeout,
      Supplier<String> failure) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last;
    while (true) {
      DbTableReader.Contents contents = db.get();
      try {
        List<String> diffs = allDifferences(contents, lake);
        if (diffs.isEmpty()) {
          return;
        }
        last = report(contents, lake, diffs);
      } catch (LakeTableReader.TableMissing e) {
        last = e.getMessage();
      }
      String failed = failure.get();
      if (failed != null) {
        // a failed task will not heal by waiting: report at once
        throw new AssertionError(failed + "\nwhile " + last);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("after " + timeout.toSeconds() + " s " + last);
      }
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  /** Fails at once, with a readable diff, unless the tables are equal now. */
  public static void assertEqual(DbTableReader.Contents db, TableReader lake) {
    List<String> diffs = allDifferences(db, lake);
    if (!diffs.isEmpty()) {
      throw new AssertionError(report(db, lake, diffs));
    }
  }

  private static String report(DbTableReader.Contents db, TableReader lake, List<String> diffs) {
    StringBuilder s =
        new StringBuilder(
            lake
                + " differs from database table "
                + db.name()
                + " ("
                + db.rows().size()
                + " rows in the database), "
                + diffs.size()
                + " difference(s):\n");
    diffs.stream().limit(MAX_REPORTED).forEach(d -> s.append("  ").append(d).append('\n'));
    if (diffs.size() > MAX_REPORTED) {
      s.append("  … ").append(diffs.size() - MAX_REPORTED).append(" more\n");
    }
    return s.toString();
  }

  /** Type differences first (they explain the value differences), then value differences. */
  private static List<String> allDifferences(DbTableReader.Contents db, TableReader lake) {
    List<String> diffs = new ArrayList<>(lake.typeDifferences(db));
    diffs.addAll(differences(db, lake.read(), lake));
    return diffs;
  }

  private static String key(DbTableReader.Contents db, Map<String, Object> normalizedRow) {
    StringBuilder k = new StringBuilder("(");
    for (String col : db.primaryKey()) {
      if (k.length() > 1) {
        k.append(", ");
      }
      k.append(col).append('=').append(Normalizer.show(normalizedRow.get(col)));
    }
    return k.append(')').toString();
  }

  private static String show(Map<String, Object> row) {
    StringBuilder s = new StringBuilder("{");
    row.forEach(
        (k, v) ->
            s.append(s.length() > 1 ? ", " : "").append(k).append('=').append(Normalizer.show(v)));
    return s.append('}').toString();
  }
}
