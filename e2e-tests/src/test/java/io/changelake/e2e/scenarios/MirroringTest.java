package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumJdbcSink;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 9, mirroring: PostgreSQL database A -> Debezium -> Kafka -> Changelake sink -> Paimon ->
 * Changelake source (changelog topic, Debezium envelope) -> Debezium's JDBC sink -> PostgreSQL
 * database B. B ends equal to A row by row, after the snapshot, after streamed inserts, updates and
 * deletes, and after {@code ADD COLUMN}s followed by more changes.
 *
 * <p>The lake table uses the sink's default {@code changelog-producer=lookup} (the one
 * connect-source recommends): its events are exact whatever was written (an update is one {@code u}
 * with the whole row before and after, a delete carries the whole old row), at the price of
 * publishing a commit only after the compaction that follows it, which {@link
 * ChangelakeConnectors#sink} runs every 5 s.
 *
 * <p>Debezium's JDBC sink with {@code schema.evolution=basic} creates B's table and adds columns,
 * but never changes a column's type or drops one. So A's schema changes here are those B can
 * follow: added columns (then written, updated and deleted), a widened {@code varchar} (B's column
 * is {@code text}, as the lake's is {@code STRING}) and a dropped column (it stays, unused, in the
 * lake and in B; the comparison covers A's columns). A type change B would have to apply, such as
 * int to bigint, is beyond basic evolution: the lake follows it (scenario 3), B's column keeps its
 * old type.
 *
 * <p>The source follows each delete with a tombstone (its default, for compacted topics).
 * Debezium's JDBC sink 3.4 cannot name the table of a tombstone with {@code ${source.table}} (there
 * is no value), so it logs a WARN ("isn't a Debezium record ... No resolvable table name") and
 * skips it; the delete event before it has already removed the row, so nothing is lost.
 */
class MirroringTest {
  private static final Duration CATCH_UP = Duration.ofSeconds(120);
  private static final String A = "mirror_a";
  private static final String B = "mirror_b";
  private static final String TABLE = "accounts";

  /** Debezium's topic prefix and the Paimon database. */
  private static final String LAKE_DB = "ma";

  private static final String CHANGELOG_TOPIC = "lake." + LAKE_DB + "." + TABLE;

  static PostgresServer pg;
  static ConnectPlatform connect;

  @TempDir static Path warehouse;

  @BeforeAll
  static void startPlatform() {
    pg = PostgresServer.start();
    connect =
        PluginWorkers.start("e2e-mirror", 1, DebeziumJdbcSink.workerProps(), new Properties());
  }

  @AfterAll
  static void stopPlatform() {
    if (connect != null) {
      connect.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void databaseBMirrorsDatabaseAThroughTheLake() {
    pg.createDatabase(A);
    pg.createDatabase(B);
    pg.execute(
        A,
        "CREATE TABLE "
            + TABLE
            + " (id int PRIMARY KEY,"
            + " c_smallint smallint, c_integer integer, c_bigint bigint, c_numeric numeric(12,3),"
            + " c_numeric_free numeric, c_real real, c_double double precision, c_text text,"
            + " c_varchar varchar(20), c_boolean boolean, c_date date, c_time_ms time(3),"
            + " c_time time, c_timestamp timestamp, c_timestamptz timestamptz,"
            + " c_interval interval, c_uuid uuid, c_jsonb jsonb, c_bytea bytea)",
        insert(1, 40));

    // the whole chain, deployed as a user would
    connect.deploy(LAKE_DB + "-pg", DebeziumPostgres.config(pg, A, LAKE_DB, "public." + TABLE), 1);
    connect.deploy(
        LAKE_DB + "-sink",
        ChangelakeConnectors.sink(warehouse, LAKE_DB + "\\.public\\..*", LAKE_DB),
        1);
    connect.deploy(
        LAKE_DB + "-source",
        ChangelakeConnectors.source(warehouse, LAKE_DB + "." + TABLE, "lake"),
        1);
    connect.deploy(LAKE_DB + "-mirror", DebeziumJdbcSink.config(pg, B, CHANGELOG_TOPIC), 1);
    awaitMirrorEqualsSource(); // the snapshot
    assertMirrorColumnTypes();

    pg.execute(
        A,
        insert(41, 70),
        "UPDATE "
            + TABLE
            + " SET c_text = 'updated ' || id, c_numeric = c_numeric + 1,"
            + " c_boolean = NOT c_boolean, c_timestamp = c_timestamp + interval '1 day'"
            + " WHERE id % 3 = 0",
        "UPDATE "
            + TABLE
            + " SET c_timestamptz = NULL, c_jsonb = '{\"set\": [1, 2]}', c_integer = NULL"
            + " WHERE id BETWEEN 20 AND 25",
        "DELETE FROM " + TABLE + " WHERE id BETWEEN 5 AND 12",
        // one key updated and deleted in one transaction, one deleted and inserted again
        "UPDATE "
            + TABLE
            + " SET c_text = 'gone soon' WHERE id = 30;"
            + " DELETE FROM "
            + TABLE
            + " WHERE id = 30",
        "DELETE FROM " + TABLE + " WHERE id = 13",
        "INSERT INTO "
            + TABLE
            + " (id, c_text, c_bigint) VALUES (13, 'born again', 9223372036854775807)");
    awaitMirrorEqualsSource();
    assertThat(mirrorIds()).as("deleted keys are gone from B").doesNotContain(5, 8, 12, 30);

    pg.execute(
        A,
        "ALTER TABLE " + TABLE + " ADD COLUMN note text",
        "ALTER TABLE " + TABLE + " ADD COLUMN c_score numeric(8,2)",
        insert(71, 80),
        "UPDATE " + TABLE + " SET note = 'note ' || id, c_score = id / 4.0 WHERE id <= 50",
        "UPDATE " + TABLE + " SET note = 'changed again' WHERE id BETWEEN 71 AND 75",
        "DELETE FROM " + TABLE + " WHERE id BETWEEN 60 AND 65 OR id = 77");
    awaitMirrorEqualsSource();
    assertThat(mirrorIds())
        .as("keys deleted after the schema change are gone from B")
        .doesNotContain(60, 65, 77);
    assertThat(DbTableReader.read(pg, B, "public", TABLE).columns())
        .as("the JDBC sink added the new columns to B")
        .extracting(DbTableReader.Column::name)
        .contains("note", "c_score");

    // schema changes B's basic evolution needs nothing for: B's column is already text, and a
    // column A drops stays in the lake and in B (neither drops columns), unused
    pg.execute(
        A,
        "ALTER TABLE " + TABLE + " ALTER COLUMN c_varchar TYPE varchar(60)",
        "ALTER TABLE " + TABLE + " DROP COLUMN c_real",
        "UPDATE "
            + TABLE
            + " SET c_varchar = 'a value longer than the old twenty characters ' || id"
            + " WHERE id BETWEEN 31 AND 45",
        "INSERT INTO " + TABLE + " (id, c_varchar, note) VALUES (81, 'after the drop', 'new')",
        "DELETE FROM " + TABLE + " WHERE id IN (14, 15, 78)");
    awaitMirrorEqualsSource();
    assertThat(mirrorIds()).as("keys deleted last are gone from B").doesNotContain(14, 15, 78);

    for (String name : List.of("-pg", "-sink", "-source", "-mirror")) {
      assertThat(connect.cluster().connectorStatus(LAKE_DB + name).tasks())
          .as(LAKE_DB + name + " ran through without a task failure")
          .allSatisfy(t -> assertThat(t.state()).isEqualTo("RUNNING"));
    }
  }

  /**
   * Type widenings in A under a running source (the reader on the old schema once failed with an
   * NPE on the first widened decimal) and truncates: B, whose table is created wide enough up front
   * (the JDBC sink's basic evolution never alters a type), follows A through both. The JDBC sink
   * applies the source's {@code op=t} with {@code truncate.enabled=true}; the topic has one
   * partition, so the truncate is in order with the rows before and after it.
   */
  @Test
  void widenedColumnsAndTruncatesReachTheMirror() {
    String a = "mirror_c";
    String b = "mirror_d";
    String lakeDb = "mc";
    String table = "ledger";
    pg.createDatabase(a);
    pg.createDatabase(b);
    pg.execute(
        a,
        "CREATE TABLE "
            + table
            + " (id int PRIMARY KEY, amount numeric(10,2), qty int, label varchar(10))",
        "INSERT INTO " + table + " SELECT i, i * 1.25, i, 'l' || i FROM generate_series(1, 20) i");
    pg.execute(
        b,
        "CREATE TABLE "
            + table
            + " (id int PRIMARY KEY, amount numeric(14,4), qty bigint,"
            + " label text)");
    Map<String, String> capture =
        new HashMap<>(DebeziumPostgres.config(pg, a, lakeDb, "public." + table));
    capture.put("skipped.operations", "none"); // Debezium skips truncates by default
    Map<String, String> mirror =
        new HashMap<>(DebeziumJdbcSink.config(pg, b, "lake." + lakeDb + "." + table));
    mirror.put("truncate.enabled", "true");
    connect.deploy(lakeDb + "-pg", capture, 1);
    connect.deploy(
        lakeDb + "-sink",
        ChangelakeConnectors.sink(warehouse, lakeDb + "\\.public\\..*", lakeDb),
        1);
    connect.deploy(
        lakeDb + "-source",
        ChangelakeConnectors.source(warehouse, lakeDb + "." + table, "lake"),
        1);
    connect.deploy(lakeDb + "-mirror", mirror, 1);
    Runnable caughtUp =
        () ->
            TableComparison.awaitEqual(
                () -> DbTableReader.read(pg, a, "public", table),
                new TableComparison.DbTable(pg, b, "public", table),
                CATCH_UP,
                () ->
                    connect.failure(
                        lakeDb + "-pg", lakeDb + "-sink", lakeDb + "-source", lakeDb + "-mirror"));
    caughtUp.run();

    pg.execute(
        a,
        "ALTER TABLE " + table + " ALTER COLUMN amount TYPE numeric(14,4)",
        "ALTER TABLE " + table + " ALTER COLUMN qty TYPE bigint",
        "ALTER TABLE " + table + " ALTER COLUMN label TYPE varchar(40)",
        "UPDATE "
            + table
            + " SET amount = 1234567890.1234 + id, qty = 1099511627776 + id,"
            + " label = 'a label longer than ten ' || id WHERE id <= 5",
        "INSERT INTO " + table + " VALUES (21, 9876543210.5678, 4398046511104, 'wide new row')");
    caughtUp.run();

    pg.execute(
        a,
        "TRUNCATE " + table,
        "INSERT INTO " + table + " VALUES (30, 1.0001, 1, 'after the truncate')",
        "INSERT INTO " + table + " VALUES (31, 2.5, 2, 'after it too')");
    caughtUp.run();
    assertThat(mirrorIds(b, table)).as("the truncated rows are gone from B").containsOnly(30, 31);

    for (String name : List.of("-pg", "-sink", "-source", "-mirror")) {
      assertThat(connect.cluster().connectorStatus(lakeDb + name).tasks())
          .as(lakeDb + name + " ran through without a task failure")
          .allSatisfy(t -> assertThat(t.state()).isEqualTo("RUNNING"));
    }
  }

  /**
   * The JDBC sink created B's columns from the published schemas: Debezium's semantic types carried
   * through the lake (uuid, json, time) come back as the database's own types; jsonb arrives as
   * json (nothing in the record tells them apart), numeric without scale as text (Debezium's JDBC
   * sink would make a VariableScaleDecimal double precision, losing digits) and interval as bigint
   * microseconds (its interval binding drops the microseconds).
   */
  private static void assertMirrorColumnTypes() {
    java.util.Map<String, String> types = new java.util.LinkedHashMap<>();
    for (DbTableReader.Column column : DbTableReader.read(pg, B, "public", TABLE).columns()) {
      types.put(column.name(), column.pgType());
    }
    assertThat(types)
        .as("column types of mirror B")
        .containsAllEntriesOf(
            java.util.Map.ofEntries(
                java.util.Map.entry("id", "int4"),
                java.util.Map.entry("c_smallint", "int2"),
                java.util.Map.entry("c_integer", "int4"),
                java.util.Map.entry("c_bigint", "int8"),
                java.util.Map.entry("c_numeric", "numeric"),
                java.util.Map.entry("c_numeric_free", "text"),
                java.util.Map.entry("c_real", "float4"),
                java.util.Map.entry("c_double", "float8"),
                java.util.Map.entry("c_text", "text"),
                java.util.Map.entry("c_boolean", "bool"),
                java.util.Map.entry("c_date", "date"),
                java.util.Map.entry("c_time_ms", "time"),
                java.util.Map.entry("c_time", "time"),
                java.util.Map.entry("c_timestamp", "timestamp"),
                java.util.Map.entry("c_timestamptz", "timestamptz"),
                java.util.Map.entry("c_interval", "int8"),
                java.util.Map.entry("c_uuid", "uuid"),
                java.util.Map.entry("c_jsonb", "json"),
                java.util.Map.entry("c_bytea", "bytea")));
  }

  /** Rows {@code from..to} with a value in every column; ids divisible by 7 are all NULL. */
  private static String insert(int from, int to) {
    return "INSERT INTO "
        + TABLE
        + " (id, c_smallint, c_integer, c_bigint, c_numeric, c_numeric_free, c_real, c_double,"
        + " c_text, c_varchar, c_boolean, c_date, c_time_ms, c_time, c_timestamp, c_timestamptz,"
        + " c_interval, c_uuid, c_jsonb, c_bytea)"
        + " SELECT i,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE (-32768 + i)::smallint END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE 2147483647 - i END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE -9223372036854775807 + i END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE (i * -1234.567)::numeric(12,3) END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE ('-12345678901234567890.' || i)::numeric END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE (i / 3.0)::real END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1.0e300 / 7 END,"
        + " CASE WHEN i % 7 = 0 THEN NULL WHEN i % 5 = 0 THEN '' ELSE 'text ' || i || ' ü€' END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || i END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE date '1970-01-01' + i * 400 - 9000 END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE time '00:00:00.123' + i * interval '17 min 1.001 s'"
        + " END,"
        + " CASE WHEN i % 7 = 0 THEN NULL"
        + " ELSE time '00:00:00.000001' + i * interval '1234.567891 s' END,"
        + " CASE WHEN i % 7 = 0 THEN NULL"
        + " ELSE timestamp '2024-03-10 01:59:59.999999' + i * interval '1 day 1.000001 s' END,"
        + " CASE WHEN i % 7 = 0 THEN NULL"
        + " ELSE timestamptz '2024-10-27 00:30:00.000001+02' + i * interval '31 min' END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE i * interval '1 day 2 hours 3.000004 s' END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE md5(i::text)::uuid END,"
        + " CASE WHEN i % 7 = 0 THEN NULL"
        + " ELSE jsonb_build_object('i', i, 'nested', jsonb_build_array(i, 'x', null)) END,"
        + " CASE WHEN i % 7 = 0 THEN NULL ELSE decode(md5(i::text), 'hex') || '\\x00ff'::bytea END"
        + " FROM generate_series("
        + from
        + ", "
        + to
        + ") i";
  }

  private static void awaitMirrorEqualsSource() {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, A, "public", TABLE),
        new TableComparison.DbTable(pg, B, "public", TABLE),
        CATCH_UP,
        () ->
            connect.failure(
                LAKE_DB + "-pg", LAKE_DB + "-sink", LAKE_DB + "-source", LAKE_DB + "-mirror"));
  }

  private static List<Integer> mirrorIds() {
    return mirrorIds(B, TABLE);
  }

  private static List<Integer> mirrorIds(String database, String table) {
    List<Integer> ids = new ArrayList<>();
    try (Connection c = pg.connect(database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM " + table)) {
      while (rs.next()) {
        ids.add(rs.getInt(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return ids;
  }
}
