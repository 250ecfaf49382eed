package io.changelake.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.LakeTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.fixtures.AllTypesTable;
import io.changelake.e2e.postgres.PostgresServer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PGInterval;

/**
 * The row-by-row comparison on real parts: a Paimon table written with a plausible type mapping for
 * every PostgreSQL type of scenario 1 compares equal to the database, and a changed value, a
 * missing row and an extra row each show up as a readable difference.
 */
class TableComparisonTest {
  static PostgresServer pg;

  @TempDir Path warehouse;

  @BeforeAll
  static void start() {
    pg = PostgresServer.start();
    pg.createDatabase("cmp");
    AllTypesTable.create(pg, "cmp");
    AllTypesTable.insert(pg, "cmp", 1, 30);
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void equalTablesCompareEqualAndEveryKindOfDifferenceIsReported() throws Exception {
    DbTableReader.Contents db = DbTableReader.read(pg, "cmp", "public", AllTypesTable.TABLE);
    assertThat(db.rows()).hasSize(30);
    LakeTable lake =
        new LakeTable(LakeTableReader.fileWarehouse(warehouse), "cmp", AllTypesTable.TABLE);
    write(lake, db.rows());

    TableComparison.assertEqual(db, lake);

    List<Map<String, Object>> changed = new ArrayList<>();
    for (Map<String, Object> row : db.rows()) {
      int id = (Integer) row.get("id");
      if (id == 3) {
        continue; // missing in the lake
      }
      Map<String, Object> copy = new java.util.LinkedHashMap<>(row);
      if (id == 2) {
        copy.put("c_time", ((LocalTime) row.get("c_time")).withNano(0));
      }
      changed.add(copy);
    }
    Map<String, Object> extra = new java.util.LinkedHashMap<>(db.rows().get(0));
    extra.put("id", 99);
    changed.add(extra);
    List<String> diffs = TableComparison.differences(db, lakeRowsOf(changed, lake));
    assertThat(diffs)
        .hasSize(3)
        .anySatisfy(d -> assertThat(d).startsWith("key (id=2) column c_time (time): database"))
        .anySatisfy(d -> assertThat(d).startsWith("key (id=3): missing in the lake"))
        .anySatisfy(d -> assertThat(d).startsWith("key (id=99): in the lake but not"));
    assertThatThrownBy(
            () -> {
              Path other = warehouse.resolve("other");
              LakeTable partial =
                  new LakeTable(LakeTableReader.fileWarehouse(other), "cmp", AllTypesTable.TABLE);
              write(partial, changed);
              TableComparison.assertEqual(db, partial);
            })
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("3 difference(s)")
        .hasMessageContaining("key (id=2) column c_time");
  }

  /** Round-trips rows through a second real Paimon table and reads them back. */
  private List<Map<String, Object>> lakeRowsOf(List<Map<String, Object>> rows, LakeTable like)
      throws Exception {
    Path dir = warehouse.resolve("scratch-" + System.nanoTime());
    LakeTable scratch =
        new LakeTable(LakeTableReader.fileWarehouse(dir), like.database(), like.table());
    write(scratch, rows);
    return scratch.read();
  }

  /** Writes JDBC rows into a new Paimon table, mapping types the way a sink plausibly would. */
  private static void write(LakeTable lake, List<Map<String, Object>> rows) throws Exception {
    Schema schema =
        Schema.newBuilder()
            .column("id", DataTypes.INT().notNull())
            .column("c_smallint", DataTypes.SMALLINT())
            .column("c_integer", DataTypes.INT())
            .column("c_bigint", DataTypes.BIGINT())
            .column("c_numeric", DataTypes.DECIMAL(12, 3))
            .column("c_numeric_free", DataTypes.STRING())
            .column("c_real", DataTypes.FLOAT())
            .column("c_double", DataTypes.DOUBLE())
            .column("c_text", DataTypes.STRING())
            .column("c_varchar", DataTypes.VARCHAR(20))
            .column("c_char", DataTypes.CHAR(5))
            .column("c_boolean", DataTypes.BOOLEAN())
            .column("c_date", DataTypes.DATE())
            .column("c_time", DataTypes.BIGINT())
            .column("c_timestamp", DataTypes.TIMESTAMP(6))
            .column("c_timestamptz", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
            .column("c_interval", DataTypes.BIGINT())
            .column("c_uuid", DataTypes.STRING())
            .column("c_json", DataTypes.STRING())
            .column("c_jsonb", DataTypes.STRING())
            .column("c_bytea", DataTypes.BYTES())
            .column("c_enum", DataTypes.STRING())
            .column("c_int_array", DataTypes.ARRAY(DataTypes.INT()))
            .column("c_text_array", DataTypes.ARRAY(DataTypes.STRING()))
            .column("_changelake_seq", DataTypes.BIGINT())
            .primaryKey("id")
            .option("bucket", "1")
            .build();
    try (Catalog catalog =
        CatalogFactory.createCatalog(
            CatalogContext.create(Options.fromMap(lake.catalogOptions())))) {
      catalog.createDatabase(lake.database(), true);
      Identifier id = Identifier.create(lake.database(), lake.table());
      catalog.createTable(id, schema, false);
      Table table = catalog.getTable(id);
      BatchWriteBuilder builder = table.newBatchWriteBuilder();
      try (BatchTableWrite write = builder.newWrite();
          BatchTableCommit commit = builder.newCommit()) {
        for (Map<String, Object> r : rows) {
          write.write(toPaimon(r));
        }
        commit.commit(write.prepareCommit());
      }
    }
  }

  private static GenericRow toPaimon(Map<String, Object> r) {
    Object[] v = new Object[25];
    v[0] = r.get("id");
    v[1] = r.get("c_smallint") == null ? null : ((Number) r.get("c_smallint")).shortValue();
    v[2] = r.get("c_integer");
    v[3] = r.get("c_bigint");
    v[4] =
        r.get("c_numeric") == null
            ? null
            : Decimal.fromBigDecimal((BigDecimal) r.get("c_numeric"), 12, 3);
    v[5] = str(r.get("c_numeric_free"));
    v[6] = r.get("c_real");
    v[7] = r.get("c_double");
    v[8] = str(r.get("c_text"));
    v[9] = str(r.get("c_varchar"));
    v[10] = str(r.get("c_char"));
    v[11] = r.get("c_boolean");
    v[12] = r.get("c_date") == null ? null : (int) ((LocalDate) r.get("c_date")).toEpochDay();
    v[13] = r.get("c_time") == null ? null : ((LocalTime) r.get("c_time")).toNanoOfDay() / 1000;
    v[14] =
        r.get("c_timestamp") == null
            ? null
            : Timestamp.fromLocalDateTime((LocalDateTime) r.get("c_timestamp"));
    v[15] =
        r.get("c_timestamptz") == null
            ? null
            : Timestamp.fromInstant(((OffsetDateTime) r.get("c_timestamptz")).toInstant());
    v[16] = r.get("c_interval") == null ? null : micros((PGInterval) r.get("c_interval"));
    v[17] = str(r.get("c_uuid"));
    // spacing differs from the database's text on purpose: JSON compares as a tree
    v[18] = r.get("c_json") == null ? null : str(r.get("c_json").toString().replace(" ", ""));
    v[19] = str(r.get("c_jsonb"));
    v[20] = r.get("c_bytea");
    v[21] = str(r.get("c_enum"));
    v[22] = r.get("c_int_array") == null ? null : new GenericArray((Object[]) r.get("c_int_array"));
    v[23] =
        r.get("c_text_array") == null
            ? null
            : new GenericArray(
                java.util.Arrays.stream((Object[]) r.get("c_text_array"))
                    .map(TableComparisonTest::str)
                    .toArray());
    v[24] = 1L;
    return GenericRow.of(v);
  }

  /** What Debezium sends for an interval (MicroDuration: double seconds, truncated). */
  private static long micros(PGInterval i) {
    double seconds =
        ((i.getDays() * 24.0 + i.getHours()) * 60 + i.getMinutes()) * 60 + i.getSeconds();
    return (long) (seconds * 1_000_000d);
  }

  private static BinaryString str(Object o) {
    return o == null ? null : BinaryString.fromBytes(o.toString().getBytes(StandardCharsets.UTF_8));
  }
}
