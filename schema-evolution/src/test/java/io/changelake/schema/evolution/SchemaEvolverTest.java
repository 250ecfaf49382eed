package io.changelake.schema.evolution;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import io.changelake.schema.ConversionOptions;
import io.changelake.schema.RowConverter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Schema evolution on real Paimon tables, written and read back through lsm-writer. */
class SchemaEvolverTest {

  private static final Identifier TABLE = Identifier.create("db", "items");
  private static final SourcePartition PARTITION = new SourcePartition("items", 0);

  @TempDir Path dir;
  private Catalog catalog;
  private WriterPool pool;
  private final SchemaEvolver evolver = new SchemaEvolver();
  private long offset;

  @BeforeEach
  void open() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
    pool =
        new WriterPool(
            catalog,
            new WriterSettings(
                "schema-test", dir.resolve("spill"), 16L << 20, Duration.ofMinutes(5)));
  }

  @AfterEach
  void close() throws Exception {
    pool.close();
    catalog.close();
  }

  @Test
  void widenedColumnsKeepValuesBeyondTheOldRange() throws Exception {
    RowType old =
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("qty", DataTypes.INT())
            .field("small", DataTypes.TINYINT())
            .field("price", DataTypes.DECIMAL(5, 2))
            .field("ratio", DataTypes.FLOAT())
            .field("at", DataTypes.TIMESTAMP(3))
            .field("code", DataTypes.VARCHAR(3))
            .build();
    create(old);
    Schema v1 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "qty", Schema.OPTIONAL_INT32_SCHEMA,
            "small", Schema.OPTIONAL_INT8_SCHEMA,
            "price", decimal(2, 5),
            "ratio", Schema.OPTIONAL_FLOAT32_SCHEMA,
            "at", io.debezium.time.Timestamp.builder().optional().build(),
            "code", Schema.OPTIONAL_STRING_SCHEMA);
    write(
        v1,
        new Struct(v1)
            .put("id", 1)
            .put("qty", 5)
            .put("small", (byte) 1)
            .put("price", new BigDecimal("999.99"))
            .put("ratio", 0.5f)
            .put("at", 1_000L)
            .put("code", "abc"));

    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "qty", Schema.OPTIONAL_INT64_SCHEMA,
            "small", Schema.OPTIONAL_INT16_SCHEMA,
            "price", decimal(4, 12),
            "ratio", Schema.OPTIONAL_FLOAT64_SCHEMA,
            "at", io.debezium.time.MicroTimestamp.builder().optional().build(),
            "code", Schema.OPTIONAL_STRING_SCHEMA);
    EvolutionResult result = evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults());

    assertThat(result.applied())
        .containsExactly(
            new SchemaChangeStep.WidenType("qty", DataTypes.INT(), DataTypes.BIGINT()),
            new SchemaChangeStep.WidenType("small", DataTypes.TINYINT(), DataTypes.SMALLINT()),
            new SchemaChangeStep.WidenType(
                "price", DataTypes.DECIMAL(5, 2), DataTypes.DECIMAL(12, 4)),
            new SchemaChangeStep.WidenType("ratio", DataTypes.FLOAT(), DataTypes.DOUBLE()),
            new SchemaChangeStep.WidenType("at", DataTypes.TIMESTAMP(3), DataTypes.TIMESTAMP(6)));
    reopen();
    write(
        v2,
        new Struct(v2)
            .put("id", 2)
            .put("qty", 5_000_000_000L)
            .put("small", (short) 30_000)
            .put("price", new BigDecimal("12345678.1234"))
            .put("ratio", 1e300)
            .put("at", 1_000_001L)
            .put("code", "xyz"));

    assertThat(LakeRows.read(table()))
        .containsExactly(
            values(
                1,
                5L,
                (short) 1,
                new BigDecimal("999.9900"),
                0.5d,
                LocalDateTime.of(1970, 1, 1, 0, 0, 1),
                "abc"),
            values(
                2,
                5_000_000_000L,
                (short) 30_000,
                new BigDecimal("12345678.1234"),
                1e300,
                LocalDateTime.of(1970, 1, 1, 0, 0, 1, 1_000),
                "xyz"));
  }

  @Test
  void newColumnIsAddedNullableAtTheEndAndOldRowsReadNull() throws Exception {
    create(TestTables.ID_NAME_AMOUNT);
    Schema v1 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA);
    write(v1, new Struct(v1).put("id", 1).put("name", "one").put("amount", 10L));

    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "discount", decimal(2, 10),
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA,
            "note", Schema.STRING_SCHEMA);
    EvolutionPolicy applyRequired =
        EvolutionPolicy.from(Map.of(EvolutionPolicy.ADD_REQUIRED_COLUMN, "apply"));
    EvolutionResult result = evolver.evolve(catalog, TABLE, v2, applyRequired);

    assertThat(result.changed()).isTrue();
    assertThat(result.rowType().getFieldNames())
        .containsExactly("id", "name", "amount", "discount", "note");
    assertThat(result.rowType().getTypeAt(3)).isEqualTo(DataTypes.DECIMAL(10, 2));
    assertThat(result.rowType().getTypeAt(4)).isEqualTo(DataTypes.STRING());
    reopen();
    RowConverter converter =
        RowConverter.compile(
            v2, table().rowType(), result.fieldMapping(), ConversionOptions.defaults());
    writeRow(
        converter,
        new Struct(v2)
            .put("id", 2)
            .put("name", "two")
            .put("amount", 20L)
            .put("discount", new BigDecimal("1.25"))
            .put("note", "new"));

    assertThat(LakeRows.read(table()))
        .containsExactly(
            values(1, "one", 10L, null, null),
            values(2, "two", 20L, new BigDecimal("1.25"), "new"));
  }

  @Test
  void missingColumnsAreKeptAndNotNullIsRelaxed() throws Exception {
    create(
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("name", DataTypes.STRING().notNull())
            .field("legacy", DataTypes.BIGINT().notNull())
            .build());
    Schema v2 = struct("id", Schema.INT32_SCHEMA, "name", Schema.OPTIONAL_STRING_SCHEMA);

    EvolutionResult result = evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults());

    assertThat(result.applied())
        .containsExactly(
            new SchemaChangeStep.RelaxNotNull("name", DataTypes.STRING().notNull()),
            new SchemaChangeStep.RelaxNotNull("legacy", DataTypes.BIGINT().notNull()));
    reopen();
    write(v2, new Struct(v2).put("id", 1));
    assertThat(LakeRows.read(table())).containsExactly(values(1, null, null));
  }

  @Test
  void lenientIncompatibleChangeAddsATypedColumnAndKeepsTheOldOne() throws Exception {
    create(
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("price", DataTypes.DECIMAL(10, 2))
            .build());
    Schema v1 = struct("id", Schema.INT32_SCHEMA, "price", decimal(2, 10));
    write(v1, new Struct(v1).put("id", 1).put("price", new BigDecimal("1.50")));
    Schema v2 = struct("id", Schema.INT32_SCHEMA, "price", Schema.OPTIONAL_STRING_SCHEMA);

    EvolutionPolicy lenient =
        EvolutionPolicy.from(Map.of(EvolutionPolicy.INCOMPATIBLE_TYPE, "LENIENT"));
    EvolutionResult result = evolver.evolve(catalog, TABLE, v2, lenient);

    assertThat(result.applied())
        .containsExactly(
            new SchemaChangeStep.AddLenientColumn(
                "price", DataTypes.DECIMAL(10, 2), "price__string", DataTypes.STRING()));
    reopen();
    write(v2, new Struct(v2).put("id", 2).put("price", "free"), result);
    assertThat(LakeRows.read(table()))
        .containsExactly(values(1, new BigDecimal("1.50"), null), values(2, null, "free"));
    // a second evolve with the same schema is a no-op
    assertThat(evolver.evolve(catalog, TABLE, v2, lenient).changed()).isFalse();
  }

  @Test
  void nestedRowGainsAField() throws Exception {
    create(
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("address", DataTypes.ROW(DataTypes.FIELD(2, "street", DataTypes.STRING())))
            .build());
    Schema address =
        SchemaBuilder.struct()
            .optional()
            .field("street", Schema.OPTIONAL_STRING_SCHEMA)
            .field("zip", Schema.OPTIONAL_INT32_SCHEMA)
            .build();
    Schema v2 = struct("id", Schema.INT32_SCHEMA, "address", address);

    EvolutionResult result = evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults());

    assertThat(result.applied()).hasSize(1).first().isInstanceOf(SchemaChangeStep.WidenType.class);
    reopen();
    write(
        v2,
        new Struct(v2)
            .put("id", 1)
            .put("address", new Struct(address).put("street", "Main").put("zip", 1234)));
    FileStoreTable table = table();
    assertThat(table.rowType().getTypeAt(1).asSQLString())
        .isEqualTo("ROW<`street` STRING, `zip` INT>");
    List<String> addresses = new ArrayList<>();
    ReadBuilder read = table.newReadBuilder();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> {
            InternalRow nested = row.getRow(1, 2);
            addresses.add(nested.getString(0) + "," + nested.getInt(1));
          });
    }
    assertThat(addresses).containsExactly("Main,1234");
  }

  @Test
  void refusedChangeNamesTableColumnTypesAndKeyAndLeavesTheTableAlone() throws Exception {
    create(TestTables.ID_NAME_AMOUNT);
    long schemaId = table().schema().id();
    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_STRING_SCHEMA);

    assertThatThrownBy(() -> evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults()))
        .isInstanceOf(SchemaEvolutionException.class)
        .hasMessageContaining("db.items")
        .hasMessageContaining("'amount'")
        .hasMessageContaining("BIGINT -> STRING")
        .hasMessageContaining("schema.evolution.incompatible-type");
    assertThat(table().schema().id()).isEqualTo(schemaId);
  }

  @Test
  void ignoredNewFieldIsDroppedAndTheTableUnchanged() throws Exception {
    create(TestTables.ID_NAME_AMOUNT);
    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA,
            "secret", Schema.OPTIONAL_STRING_SCHEMA);
    EvolutionPolicy ignore = EvolutionPolicy.from(Map.of(EvolutionPolicy.ADD_COLUMN, "IGNORE"));

    EvolutionResult result = evolver.evolve(catalog, TABLE, v2, ignore);

    assertThat(result.changed()).isFalse();
    assertThat(result.fieldMapping().droppedFields()).containsExactly("secret");
    write(
        v2,
        new Struct(v2).put("id", 1).put("name", "a").put("amount", 1L).put("secret", "x"),
        result);
    assertThat(LakeRows.read(table())).containsExactly(values(1, "a", 1L));
  }

  @Test
  void evolverSeesChangesMadeThroughAnotherCachingCatalog() throws Exception {
    create(TestTables.ID_NAME_AMOUNT);
    // this catalog caches the table on its first schema
    assertThat(catalog.getTable(TABLE).rowType().getFieldCount()).isEqualTo(3);
    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA,
            "added", Schema.OPTIONAL_BOOLEAN_SCHEMA);
    try (Catalog other = TestTables.localCatalog(dir.resolve("warehouse"))) {
      assertThat(evolver.evolve(other, TABLE, v2, EvolutionPolicy.defaults()).changed()).isTrue();
    }

    EvolutionResult mine = evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults());

    assertThat(mine.changed()).isFalse();
    assertThat(mine.rowType().getFieldNames()).containsExactly("id", "name", "amount", "added");
    assertThat(catalog.getTable(TABLE).rowType().getFieldNames()).contains("added");
  }

  @Test
  void racingEvolversAllSucceedWithOneResultingSchema() throws Exception {
    create(
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("name", DataTypes.STRING().notNull())
            .field("qty", DataTypes.INT())
            .build());
    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "qty", Schema.OPTIONAL_INT64_SCHEMA,
            "a", Schema.OPTIONAL_STRING_SCHEMA,
            "b", decimal(3, 20),
            "c", io.debezium.time.MicroTimestamp.builder().optional().build());
    int tasks = 6;
    ExecutorService threads = Executors.newFixedThreadPool(tasks);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<EvolutionResult>> futures = new ArrayList<>();
    List<Catalog> catalogs = new ArrayList<>();
    try {
      for (int i = 0; i < tasks; i++) {
        Catalog own = TestTables.localCatalog(dir.resolve("warehouse"));
        catalogs.add(own);
        own.getTable(TABLE); // each task has the old schema cached, as a running task would
        Callable<EvolutionResult> task =
            () -> {
              start.await();
              return new SchemaEvolver().evolve(own, TABLE, v2, EvolutionPolicy.defaults());
            };
        futures.add(threads.submit(task));
      }
      start.countDown();
      List<EvolutionResult> results = new ArrayList<>();
      for (Future<EvolutionResult> future : futures) {
        results.add(future.get(2, TimeUnit.MINUTES));
      }

      RowType expected = table().rowType();
      assertThat(expected.getFieldNames()).containsExactly("id", "name", "qty", "a", "b", "c");
      assertThat(expected.getTypeAt(1)).isEqualTo(DataTypes.STRING());
      assertThat(expected.getTypeAt(2)).isEqualTo(DataTypes.BIGINT());
      assertThat(results).allSatisfy(r -> assertThat(r.rowType()).isEqualTo(expected));
      // every column was added exactly once, by whichever task won
      assertThat(results.stream().flatMap(r -> r.applied().stream()).toList())
          .filteredOn(SchemaChangeStep.AddColumn.class::isInstance)
          .extracting(step -> ((SchemaChangeStep.AddColumn) step).column())
          .containsExactlyInAnyOrder("a", "b", "c");
      // one new schema version: nobody applied the change twice
      assertThat(SchemaHistory.list(table()))
          .extracting(SchemaVersion::rowType)
          .hasSize(2)
          .last()
          .isEqualTo(expected);
    } finally {
      threads.shutdownNow();
      for (Catalog own : catalogs) {
        own.close();
      }
    }
  }

  @Test
  void historyListsEveryAppliedChangeAlsoThroughTheSchemasSystemTable() throws Exception {
    create(TestTables.ID_NAME_AMOUNT);
    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA,
            "added", Schema.OPTIONAL_BOOLEAN_SCHEMA);
    evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults());
    Schema v3 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_STRING_SCHEMA,
            "added", Schema.OPTIONAL_BOOLEAN_SCHEMA);
    evolver.evolve(
        catalog,
        TABLE,
        v3,
        EvolutionPolicy.from(Map.of(EvolutionPolicy.INCOMPATIBLE_TYPE, "LENIENT")));

    List<SchemaVersion> history = SchemaHistory.list(table());

    assertThat(history).extracting(SchemaVersion::schemaId).containsExactly(0L, 1L, 2L);
    assertThat(history.get(0).changes()).isEmpty();
    assertThat(history.get(1).changes())
        .containsExactly(new SchemaChangeStep.AddColumn("added", DataTypes.BOOLEAN()));
    assertThat(history.get(2).changes())
        .containsExactly(
            new SchemaChangeStep.AddLenientColumn(
                "amount", DataTypes.BIGINT(), "amount__string", DataTypes.STRING()));
    assertThat(history).allSatisfy(v -> assertThat(v.createdAt()).isNotNull());
    // the same versions as Paimon's own $schemas system table shows
    assertThat(LakeRows.read(catalog.getTable(Identifier.create("db", "items$schemas"))))
        .hasSize(3);
  }

  @Test
  void partialUpdateTableKeepsStoredValuesOfAbsentAndUnavailableColumns() throws Exception {
    create(TestTables.ID_NAME_AMOUNT, MergeEngine.PARTIAL_UPDATE);
    Schema full =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA);
    write(full, new Struct(full).put("id", 1).put("name", "kept").put("amount", 10L));
    // the source dropped "amount"; "name" is an unchanged TOASTed value Debezium did not send
    Schema narrower = struct("id", Schema.INT32_SCHEMA, "name", Schema.OPTIONAL_STRING_SCHEMA);
    EvolutionResult result = evolver.evolve(catalog, TABLE, narrower, EvolutionPolicy.defaults());
    assertThat(result.changed()).isFalse();

    RowConverter converter =
        RowConverter.compile(
            narrower, result.rowType(), result.fieldMapping(), ConversionOptions.defaults());
    var converted =
        converter.convert(
            new Struct(narrower)
                .put("id", 1)
                .put("name", ConversionOptions.DEBEZIUM_UNAVAILABLE_VALUE),
            RowKind.UPDATE_AFTER);
    assertThat(converted.keepStored().stream().boxed().toList()).containsExactly(1, 2);
    pool.writer(TABLE).write(converted.row());
    pool.writer(TABLE).commit(Map.of(PARTITION, ++offset));

    assertThat(LakeRows.read(table())).containsExactly(values(1, "kept", 10L));
  }

  @Test
  void deduplicateTableWritesNullForColumnsTheRecordLacks() throws Exception {
    create(TestTables.ID_NAME_AMOUNT);
    Schema full =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA);
    write(full, new Struct(full).put("id", 1).put("name", "old").put("amount", 10L));
    Schema narrower = struct("id", Schema.INT32_SCHEMA, "name", Schema.OPTIONAL_STRING_SCHEMA);

    write(narrower, new Struct(narrower).put("id", 1).put("name", "new"));

    assertThat(LakeRows.read(table())).containsExactly(values(1, "new", null));
  }

  @Test
  void arraysAndMapsWidenInsideAndRowsInArraysGainFields() throws Exception {
    create(
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("tags", DataTypes.ARRAY(DataTypes.INT()))
            .field("counts", DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.INT()))
            .field(
                "items",
                DataTypes.ARRAY(DataTypes.ROW(DataTypes.FIELD(3, "sku", DataTypes.STRING()))))
            .build());
    Schema item =
        SchemaBuilder.struct()
            .optional()
            .field("sku", Schema.OPTIONAL_STRING_SCHEMA)
            .field("qty", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "tags", SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).optional().build(),
            "counts",
                SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA)
                    .optional()
                    .build(),
            "items", SchemaBuilder.array(item).optional().build());

    EvolutionResult result = evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults());

    assertThat(result.applied()).hasSize(3);
    FileStoreTable table = table();
    assertThat(table.rowType().getTypeAt(1).asSQLString()).isEqualTo("ARRAY<BIGINT>");
    assertThat(table.rowType().getTypeAt(2).asSQLString())
        .isEqualTo("MAP<STRING NOT NULL, BIGINT>");
    assertThat(table.rowType().getTypeAt(3).asSQLString())
        .isEqualTo("ARRAY<ROW<`sku` STRING, `qty` BIGINT>>");
    reopen();
    write(
        v2,
        new Struct(v2)
            .put("id", 1)
            .put("tags", List.of(5_000_000_000L))
            .put("counts", Map.of("a", 6_000_000_000L))
            .put("items", List.of(new Struct(item).put("sku", "x").put("qty", 7_000_000_000L))));
    List<String> values = new ArrayList<>();
    ReadBuilder read = table().newReadBuilder();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row ->
              values.add(
                  row.getArray(1).getLong(0)
                      + " "
                      + row.getMap(2).valueArray().getLong(0)
                      + " "
                      + row.getArray(3).getRow(0, 2).getString(0)
                      + " "
                      + row.getArray(3).getRow(0, 2).getLong(1)));
    }
    assertThat(values).containsExactly("5000000000 6000000000 x 7000000000");
  }

  @Test
  void aChangePaimonRefusesIsReportedAtOnceWithPaimonsReason() throws Exception {
    create(
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("byCode", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.STRING()))
            .build());
    long before = table().schema().id();
    // map keys cannot be changed in place in Paimon 1.3
    Schema v2 =
        struct(
            "id",
            Schema.INT32_SCHEMA,
            "byCode",
            SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA)
                .optional()
                .build());

    assertThatThrownBy(() -> evolver.evolve(catalog, TABLE, v2, EvolutionPolicy.defaults()))
        .isInstanceOf(SchemaEvolutionException.class)
        .hasMessageContaining("db.items")
        .hasMessageContaining("'byCode'")
        .hasMessageContaining("MAP<INT NOT NULL, STRING> -> MAP<BIGINT NOT NULL, STRING>")
        .hasMessageContaining("Paimon refused")
        .hasMessageNotContaining("attempts");
    assertThat(table().schema().id()).isEqualTo(before);
  }

  @Test
  void companionChangesLandInTheSameSchemaAsTheColumnsAndOnlyWhileMissing() throws Exception {
    create(TestTables.ID_NAME_AMOUNT);
    Schema v2 =
        struct(
            "id", Schema.INT32_SCHEMA,
            "name", Schema.OPTIONAL_STRING_SCHEMA,
            "amount", Schema.OPTIONAL_INT64_SCHEMA,
            "note", Schema.OPTIONAL_STRING_SCHEMA);
    List<String> asked = new ArrayList<>();
    // as the sink's sequence groups do: name the new column in an option, once
    CompanionChanges companion =
        (target, mapping, options) -> {
          asked.add(mapping.columnByField().get("note"));
          String members = String.join(",", target.getFieldNames().subList(1, 4));
          return members.equals(options.get("group"))
              ? List.of()
              : List.of(org.apache.paimon.schema.SchemaChange.setOption("group", members));
        };
    long before = table().schema().id();

    EvolutionResult result =
        evolver.evolve(catalog, TABLE, v2, null, EvolutionPolicy.defaults(), companion);

    assertThat(result.changed()).isTrue();
    // one ALTER: the schema right after the old one has both the column and the option
    assertThat(table().schemaManager().schema(before + 1).fieldNames()).contains("note");
    assertThat(table().schemaManager().schema(before + 1).options())
        .containsEntry("group", "name,amount,note");
    assertThat(table().schema().id()).isEqualTo(before + 1);
    assertThat(asked).containsExactly("note", "note");
    // nothing left to add: the companion alone does not alter the table again
    assertThat(
            evolver
                .evolve(catalog, TABLE, v2, null, EvolutionPolicy.defaults(), companion)
                .changed())
        .isFalse();
    assertThat(table().schema().id()).isEqualTo(before + 1);
  }

  @Test
  void internalColumnPrefixIsLsmWritersOne() {
    assertThat(EvolutionPlanner.INTERNAL_PREFIX)
        .isEqualTo(io.changelake.lsm.table.InternalColumns.PREFIX);
  }

  private void create(RowType rowType) {
    create(rowType, MergeEngine.DEDUPLICATE);
  }

  private void create(RowType rowType, MergeEngine mergeEngine) {
    LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            TABLE,
            rowType,
            List.of("id"),
            new TableLayout(
                List.of(), 1, mergeEngine, ChangelogProducer.NONE, List.of(), Map.of())));
  }

  private FileStoreTable table() {
    catalog.invalidateTable(TABLE);
    return LakeTables.open(catalog, TABLE);
  }

  private void reopen() {
    pool.writer(TABLE).reopen(Map.of(PARTITION, offset));
  }

  /** Writes through the plan the evolver would give the sink, like the sink does. */
  private void write(Schema schema, Struct value) throws Exception {
    write(schema, value, evolver.evolve(catalog, TABLE, schema, EvolutionPolicy.defaults()));
  }

  private void write(Schema schema, Struct value, EvolutionResult result) {
    TableWriter writer = pool.writer(TABLE);
    writeRow(
        RowConverter.compile(
            schema, writer.table().rowType(), result.fieldMapping(), ConversionOptions.defaults()),
        value);
  }

  private void writeRow(RowConverter converter, Struct value) {
    TableWriter writer = pool.writer(TABLE);
    writer.write(converter.convert(value, RowKind.INSERT).row());
    writer.commit(Map.of(PARTITION, ++offset));
  }

  private static Schema struct(Object... namesAndSchemas) {
    SchemaBuilder builder = SchemaBuilder.struct().name("db.items.Value");
    for (int i = 0; i < namesAndSchemas.length; i += 2) {
      builder.field((String) namesAndSchemas[i], (Schema) namesAndSchemas[i + 1]);
    }
    return builder.build();
  }

  private static Schema decimal(int scale, int precision) {
    return Decimal.builder(scale)
        .parameter("connect.decimal.precision", String.valueOf(precision))
        .optional()
        .build();
  }
}
