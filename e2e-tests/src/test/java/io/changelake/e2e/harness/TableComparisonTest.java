package io.changelake.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.fixtures.AllTypesTable;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.postgres.PostgresServer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PGInterval;

/**
 * The row-by-row comparison on real parts: a Paimon table written with the mapping {@code
 * ExpectedLakeTypes} lists for every PostgreSQL type of scenario 1 compares equal to the database;
 * a changed value, a missing row and an extra row each show up as a readable difference; and every
 * wrong type mapping a regression could make (an integer as STRING, a numeric as DOUBLE or with
 * another scale, TIMESTAMP and TIMESTAMP_LTZ swapped, a naive time, a NOT NULL where the database
 * allows NULL) fails twice over: on the lake column's type, and on the values alone. The one
 * leniency left, Debezium's interval arithmetic, lets through Debezium's value and nothing else.
 */
class TableComparisonTest {
  static PostgresServer pg;
  static DbTableReader.Contents db;
  static DbTableReader.Contents spans;

  @TempDir Path warehouse;

  @BeforeAll
  static void start() {
    pg = PostgresServer.start();
    pg.createDatabase("cmp");
    AllTypesTable.create(pg, "cmp");
    AllTypesTable.insert(pg, "cmp", 1, 30);
    pg.execute(
        "cmp",
        "CREATE TABLE spans (id int PRIMARY KEY, d interval)",
        "INSERT INTO spans VALUES (1, '1 mon'), (2, '1 year 2 mons 3 days 04:05:06.000007'),"
            + " (3, '-3 days 00:00:00.5'), (4, NULL)");
    db = DbTableReader.read(pg, "cmp", "public", AllTypesTable.TABLE);
    spans = DbTableReader.read(pg, "cmp", "public", "spans");
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void equalTablesCompareEqualAndEveryKindOfDifferenceIsReported() throws Exception {
    assertThat(db.rows()).hasSize(30);
    LakeTable lake = write("equal", columns(), db.rows());

    TableComparison.assertEqual(db, lake);

    List<Map<String, Object>> changed = new ArrayList<>();
    for (Map<String, Object> row : db.rows()) {
      int id = (Integer) row.get("id");
      if (id == 3) {
        continue; // missing in the lake
      }
      Map<String, Object> copy = new LinkedHashMap<>(row);
      if (id == 2) {
        copy.put("c_time", ((LocalTime) row.get("c_time")).withNano(0));
      }
      changed.add(copy);
    }
    Map<String, Object> extra = new LinkedHashMap<>(db.rows().get(0));
    extra.put("id", 99);
    changed.add(extra);
    LakeTable partial = write("partial", columns(), changed);
    List<String> diffs = TableComparison.differences(db, partial.read());
    assertThat(diffs)
        .hasSize(3)
        .anySatisfy(d -> assertThat(d).startsWith("key (id=2) column c_time (time): database"))
        .anySatisfy(d -> assertThat(d).startsWith("key (id=3): missing in the lake"))
        .anySatisfy(d -> assertThat(d).startsWith("key (id=99): in the lake but not"));
    assertThatThrownBy(() -> TableComparison.assertEqual(db, partial))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("3 difference(s)")
        .hasMessageContaining("key (id=2) column c_time");
  }

  @Test
  void anIntegerColumnStoredAsTextFails() throws Exception {
    assertWrongMapping(
        "c_integer",
        DataTypes.STRING(),
        TableComparisonTest::str,
        "lake type STRING, expected INT");
  }

  @Test
  void aNumericColumnStoredAsDoubleFails() throws Exception {
    assertWrongMapping(
        "c_numeric",
        DataTypes.DOUBLE(),
        v -> ((BigDecimal) v).doubleValue(),
        "lake type DOUBLE, expected DECIMAL(12, 3)");
  }

  @Test
  void aNumericColumnWithAnotherScaleFails() throws Exception {
    // the same numbers, 1234.5670 instead of 1234.567: equal in value, not in type or scale
    assertWrongMapping(
        "c_numeric",
        DataTypes.DECIMAL(13, 4),
        v -> Decimal.fromBigDecimal(((BigDecimal) v).setScale(4), 13, 4),
        "lake type DECIMAL(13, 4), expected DECIMAL(12, 3)");
  }

  @Test
  void anUnscaledNumericComparesWithoutTrailingZerosAndNoOtherSpelling() throws Exception {
    // ids 10, 20, 30 end in a zero ('…890.10'): Debezium sends '…890.1', which passes above;
    // the text as PostgreSQL prints it, zero kept, does not
    Map<String, Column> columns = columns();
    columns.put(
        "c_numeric_free",
        new Column(DataTypes.STRING(), v -> str(((BigDecimal) v).toPlainString())));
    assertThat(TableComparison.differences(db, write("zeros", columns, db.rows()).read()))
        .hasSize(3)
        .allSatisfy(d -> assertThat(d).contains(" column c_numeric_free (numeric): database '"));
    assertWrongMapping(
        "c_numeric_free",
        DataTypes.DECIMAL(38, 10),
        v -> Decimal.fromBigDecimal(((BigDecimal) v).setScale(10), 38, 10),
        "lake type DECIMAL(38, 10), expected STRING");
  }

  @Test
  void aTimestampStoredAsAnInstantFails() throws Exception {
    // the naive value read as UTC: the same digits, but a different type
    assertWrongMapping(
        "c_timestamp",
        DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
        v -> Timestamp.fromInstant(((LocalDateTime) v).toInstant(ZoneOffset.UTC)),
        "lake type TIMESTAMP(6) WITH LOCAL TIME ZONE, expected TIMESTAMP(6)");
  }

  @Test
  void aTimestamptzStoredAsANaiveTimestampFails() throws Exception {
    // the UTC wall-clock time of the instant: what a sink dropping the zone would write
    assertWrongMapping(
        "c_timestamptz",
        DataTypes.TIMESTAMP(6),
        v ->
            Timestamp.fromLocalDateTime(
                ((OffsetDateTime) v).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()),
        "lake type TIMESTAMP(6), expected TIMESTAMP(6) WITH LOCAL TIME ZONE");
  }

  @Test
  void aMicrosecondTimeStoredAsMillisecondTimeFails() throws Exception {
    assertWrongMapping(
        "c_time",
        DataTypes.TIME(3),
        v -> (int) (((LocalTime) v).toNanoOfDay() / 1_000_000),
        "lake type TIME(3), expected STRING");
  }

  @Test
  void aSmallintWidenedToBigintFails() throws Exception {
    assertWrongMapping(
        "c_smallint",
        DataTypes.BIGINT(),
        v -> ((Number) v).longValue(),
        "lake type BIGINT, expected SMALLINT");
  }

  @Test
  void aNotNullColumnForANullableOneFails() throws Exception {
    // every value of the column is written, but the lake declares what the database does not
    List<Map<String, Object>> rows =
        db.rows().stream().filter(r -> r.get("c_bigint") != null).toList();
    DbTableReader.Contents nonNull =
        new DbTableReader.Contents(db.name(), db.columns(), db.primaryKey(), rows);
    Map<String, Column> columns = columns();
    columns.put("c_bigint", new Column(DataTypes.BIGINT().notNull(), v -> v));
    LakeTable lake = write("notnull", columns, rows);
    assertThat(TableComparison.differences(nonNull, lake.read())).isEmpty();
    assertThatThrownBy(() -> TableComparison.assertEqual(nonNull, lake))
        .hasMessageContaining("1 difference(s)")
        .hasMessageContaining(
            "column c_bigint (bigint): lake type BIGINT NOT NULL, expected BIGINT");
  }

  @Test
  void intervalsCompareAtDebeziumsPrecisionAndNoOther() throws Exception {
    // Debezium's MicroDuration: a month is 365.25/12 days, in double arithmetic, truncated
    Column debezium = new Column(DataTypes.BIGINT(), v -> debeziumMicros((PGInterval) v));
    LakeTable asDebezium = writeSpans("debezium", debezium);
    TableComparison.assertEqual(spans, asDebezium);

    // the exact length with a month of 30 days (what a sink parsing ISO text might compute)
    Column thirtyDays = new Column(DataTypes.BIGINT(), v -> thirtyDayMonthMicros((PGInterval) v));
    assertThat(TableComparison.differences(spans, writeSpans("thirty", thirtyDays).read()))
        .hasSize(2)
        .anySatisfy(d -> assertThat(d).startsWith("key (id=1) column d (interval)"))
        .anySatisfy(d -> assertThat(d).startsWith("key (id=2) column d (interval)"));

    // one microsecond off Debezium's value
    Column offByOne = new Column(DataTypes.BIGINT(), v -> debeziumMicros((PGInterval) v) + 1);
    assertThat(TableComparison.differences(spans, writeSpans("plusone", offByOne).read()))
        .hasSize(3);

    // the ISO text of the interval: a number is expected
    Column text = new Column(DataTypes.STRING(), v -> str(((PGInterval) v).getValue()));
    assertThatThrownBy(() -> TableComparison.assertEqual(spans, writeSpans("text", text)))
        .hasMessageContaining("column d (interval): lake type STRING, expected BIGINT")
        .hasMessageContaining("must read as BIGINT (Long), the lake has String");
  }

  /**
   * Writes the database rows with {@code column} mapped to {@code type} (values by {@code convert})
   * and asserts the comparison fails on the column's type and, independently, on its values: for
   * every row where the column is not NULL.
   */
  private void assertWrongMapping(
      String column, DataType type, Function<Object, Object> convert, String typeDifference)
      throws Exception {
    Map<String, Column> columns = columns();
    columns.put(column, new Column(type, convert));
    LakeTable lake = write(column + "-" + type.getTypeRoot(), columns, db.rows());
    long nonNull = db.rows().stream().filter(r -> r.get(column) != null).count();

    List<String> valueDiffs = TableComparison.differences(db, lake.read());
    assertThat(valueDiffs)
        .as("the values alone (no schema check) differ in every non-NULL " + column)
        .hasSize((int) nonNull)
        .allSatisfy(d -> assertThat(d).contains(" column " + column + " ("));
    assertThatThrownBy(() -> TableComparison.assertEqual(db, lake))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining((nonNull + 1) + " difference(s)")
        .hasMessageContaining("column " + column + " (")
        .hasMessageContaining(typeDifference);
  }

  /** One lake column: its Paimon type and how a JDBC value becomes a Paimon internal value. */
  private record Column(DataType type, Function<Object, Object> convert) {}

  /** The expected mapping of every column of {@link AllTypesTable}, as a sink must write it. */
  private static Map<String, Column> columns() {
    Map<String, Column> c = new LinkedHashMap<>();
    c.put("id", new Column(DataTypes.INT().notNull(), v -> v));
    c.put("c_smallint", new Column(DataTypes.SMALLINT(), v -> ((Number) v).shortValue()));
    c.put("c_integer", new Column(DataTypes.INT(), v -> v));
    c.put("c_bigint", new Column(DataTypes.BIGINT(), v -> v));
    c.put(
        "c_numeric",
        new Column(DataTypes.DECIMAL(12, 3), v -> Decimal.fromBigDecimal((BigDecimal) v, 12, 3)));
    // as Debezium sends a numeric without scale: trailing zeros stripped
    c.put(
        "c_numeric_free",
        new Column(
            DataTypes.STRING(), v -> str(((BigDecimal) v).stripTrailingZeros().toPlainString())));
    c.put("c_real", new Column(DataTypes.FLOAT(), v -> v));
    c.put("c_double", new Column(DataTypes.DOUBLE(), v -> v));
    c.put("c_text", new Column(DataTypes.STRING(), TableComparisonTest::str));
    c.put("c_varchar", new Column(DataTypes.STRING(), TableComparisonTest::str));
    // with PostgreSQL's padding, as pgoutput sends it
    c.put("c_char", new Column(DataTypes.STRING(), TableComparisonTest::str));
    c.put("c_boolean", new Column(DataTypes.BOOLEAN(), v -> v));
    c.put("c_date", new Column(DataTypes.DATE(), v -> (int) ((LocalDate) v).toEpochDay()));
    c.put(
        "c_time",
        new Column(
            DataTypes.STRING(),
            v -> str(DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS").format((LocalTime) v))));
    c.put(
        "c_timestamp",
        new Column(DataTypes.TIMESTAMP(6), v -> Timestamp.fromLocalDateTime((LocalDateTime) v)));
    c.put(
        "c_timestamptz",
        new Column(
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
            v -> Timestamp.fromInstant(((OffsetDateTime) v).toInstant())));
    c.put("c_interval", new Column(DataTypes.BIGINT(), v -> debeziumMicros((PGInterval) v)));
    c.put("c_uuid", new Column(DataTypes.STRING(), TableComparisonTest::str));
    c.put("c_json", new Column(DataTypes.STRING(), TableComparisonTest::str));
    c.put("c_jsonb", new Column(DataTypes.STRING(), TableComparisonTest::str));
    c.put("c_bytea", new Column(DataTypes.BYTES(), v -> v));
    c.put("c_enum", new Column(DataTypes.STRING(), TableComparisonTest::str));
    c.put(
        "c_int_array",
        new Column(DataTypes.ARRAY(DataTypes.INT()), v -> new GenericArray((Object[]) v)));
    c.put(
        "c_text_array",
        new Column(
            DataTypes.ARRAY(DataTypes.STRING()),
            v ->
                new GenericArray(
                    java.util.Arrays.stream((Object[]) v)
                        .map(TableComparisonTest::str)
                        .toArray())));
    // platform bookkeeping: only the lake has it, never compared
    c.put("_changelake_seq", new Column(DataTypes.BIGINT(), v -> 1L));
    return c;
  }

  private LakeTable writeSpans(String name, Column d) throws Exception {
    Map<String, Column> columns = new LinkedHashMap<>();
    columns.put("id", new Column(DataTypes.INT().notNull(), v -> v));
    columns.put("d", d);
    return write(name, columns, spans.rows(), "spans");
  }

  private LakeTable write(String name, Map<String, Column> columns, List<Map<String, Object>> rows)
      throws Exception {
    return write(name, columns, rows, AllTypesTable.TABLE);
  }

  /** Writes JDBC rows into a new Paimon table of its own warehouse {@code name}. */
  private LakeTable write(
      String name, Map<String, Column> columns, List<Map<String, Object>> rows, String table)
      throws Exception {
    LakeTable lake =
        new LakeTable(LakeTableReader.fileWarehouse(warehouse.resolve(name)), "cmp", table);
    Schema.Builder schema = Schema.newBuilder();
    columns.forEach((n, c) -> schema.column(n, c.type()));
    schema.primaryKey("id").option("bucket", "1");
    try (Catalog catalog =
        CatalogFactory.createCatalog(
            CatalogContext.create(Options.fromMap(lake.catalogOptions())))) {
      catalog.createDatabase(lake.database(), true);
      Identifier id = Identifier.create(lake.database(), lake.table());
      catalog.createTable(id, schema.build(), false);
      Table t = catalog.getTable(id);
      BatchWriteBuilder builder = t.newBatchWriteBuilder();
      try (BatchTableWrite write = builder.newWrite();
          BatchTableCommit commit = builder.newCommit()) {
        for (Map<String, Object> r : rows) {
          Object[] values = new Object[columns.size()];
          int i = 0;
          for (var e : columns.entrySet()) {
            Object v = e.getKey().startsWith("_changelake") ? 0L : r.get(e.getKey());
            values[i++] = v == null ? null : e.getValue().convert().apply(v);
          }
          write.write(GenericRow.of(values));
        }
        commit.commit(write.prepareCommit());
      }
    }
    return lake;
  }

  /** What Debezium sends for an interval (MicroDuration: double seconds, truncated). */
  private static long debeziumMicros(PGInterval i) {
    double seconds =
        ((((i.getYears() * 12 + i.getMonths()) * (365.25 / 12) + i.getDays()) * 24 + i.getHours())
                        * 60
                    + i.getMinutes())
                * 60
            + i.getSeconds();
    return (long) (seconds * 1_000_000d);
  }

  /** The interval's length with 30-day months, in exact arithmetic. */
  private static long thirtyDayMonthMicros(PGInterval i) {
    BigDecimal days = BigDecimal.valueOf((i.getYears() * 12L + i.getMonths()) * 30L + i.getDays());
    BigDecimal seconds =
        days.multiply(BigDecimal.valueOf(86400))
            .add(BigDecimal.valueOf(i.getHours() * 3600L + i.getMinutes() * 60L))
            .add(BigDecimal.valueOf(i.getSeconds()));
    return seconds.movePointRight(6).longValue();
  }

  private static BinaryString str(Object o) {
    return o == null ? null : BinaryString.fromBytes(o.toString().getBytes(StandardCharsets.UTF_8));
  }
}
