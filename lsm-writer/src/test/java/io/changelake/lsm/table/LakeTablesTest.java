package io.changelake.lsm.table;

import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LakeTablesTest {
  @TempDir Path dir;
  private Catalog catalog;

  @BeforeEach
  void openCatalog() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
  }

  @AfterEach
  void closeCatalog() throws Exception {
    catalog.close();
  }

  @Test
  void everyFieldOfTheSpecReachesTheTable() {
    RowType rowType =
        RowType.builder()
            .field("region", DataTypes.STRING().notNull())
            .field("id", DataTypes.BIGINT().notNull())
            .field("name", DataTypes.STRING())
            .field("_changelake_lsn", DataTypes.BIGINT())
            .field("_changelake_offset", DataTypes.BIGINT())
            .build();
    TableSpec spec =
        new TableSpec(
            Identifier.create("crm", "customers"),
            rowType,
            List.of("region", "id"),
            new TableLayout(
                List.of("region"),
                3,
                MergeEngine.PARTIAL_UPDATE,
                ChangelogProducer.LOOKUP,
                List.of("_changelake_lsn", "_changelake_offset"),
                Map.of("partial-update.remove-record-on-delete", "true", "file.format", "orc")));

    FileStoreTable table = LakeTables.createOrOpen(catalog, spec);

    assertThat(table.schema().primaryKeys()).containsExactly("region", "id");
    assertThat(table.schema().partitionKeys()).containsExactly("region");
    assertThat(table.rowType().getFieldNames())
        .containsExactly("region", "id", "name", "_changelake_lsn", "_changelake_offset");
    Map<String, String> options = table.options();
    assertThat(options)
        .containsEntry("bucket", "3")
        .containsEntry("merge-engine", "partial-update")
        .containsEntry("changelog-producer", "lookup")
        .containsEntry("sequence.field", "_changelake_lsn,_changelake_offset")
        .containsEntry("partial-update.remove-record-on-delete", "true")
        .containsEntry("file.format", "orc")
        .containsEntry("consumer.expiration-time", "7 d");
    assertThat(table.coreOptions().mergeEngine()).isEqualTo(CoreOptions.MergeEngine.PARTIAL_UPDATE);
  }

  @Test
  void passThroughMergeEnginesAndFreeOptionsWinOverTypedFields() {
    TableSpec firstRow =
        new TableSpec(
            Identifier.create("db", "first"),
            TestTables.ID_NAME_AMOUNT,
            List.of("id"),
            new TableLayout(
                List.of(), 1, MergeEngine.FIRST_ROW, ChangelogProducer.NONE, List.of(), Map.of()));
    TableSpec aggregation =
        new TableSpec(
            Identifier.create("db", "sums"),
            TestTables.ID_NAME_AMOUNT,
            List.of("id"),
            new TableLayout(
                List.of(),
                1,
                MergeEngine.AGGREGATION,
                ChangelogProducer.INPUT,
                List.of(),
                Map.of("fields.amount.aggregate-function", "sum", "bucket", "4")));

    assertThat(LakeTables.createOrOpen(catalog, firstRow).options())
        .containsEntry("merge-engine", "first-row");
    FileStoreTable sums = LakeTables.createOrOpen(catalog, aggregation);
    assertThat(sums.options())
        .containsEntry("merge-engine", "aggregation")
        .containsEntry("changelog-producer", "input")
        .containsEntry("bucket", "4");
    TableSpec ownExpiry =
        new TableSpec(
            Identifier.create("db", "expiry"),
            TestTables.ID_NAME_AMOUNT,
            List.of("id"),
            new TableLayout(
                List.of(),
                1,
                MergeEngine.DEDUPLICATE,
                ChangelogProducer.INPUT,
                List.of(),
                Map.of("consumer.expiration-time", "1 h")));
    assertThat(LakeTables.createOrOpen(catalog, ownExpiry).options())
        .containsEntry("consumer.expiration-time", "1 h");

    try (WriterPool pool =
        new WriterPool(
            catalog, new WriterSettings("t", dir.resolve("spill"), 4 << 20, Duration.ZERO))) {
      TableWriter writer = pool.writer(Identifier.create("db", "sums"));
      writer.write(insert(1, "a", 5L));
      writer.write(insert(1, "a", 7L));
      writer.commit(Map.of(new SourcePartition("t", 0), 2L));
    }
    assertThat(LakeRows.read(LakeTables.open(catalog, Identifier.create("db", "sums"))))
        .containsExactly(values(1, "a", 12L));
  }

  @Test
  void manyTasksCreatingTheSameTableAtOnceAllGetIt() throws Exception {
    int tasks = 8;
    TableSpec spec = TestTables.spec("race", "orders", 2);
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService executor = Executors.newFixedThreadPool(tasks);
    List<Catalog> catalogs = new ArrayList<>();
    try {
      List<Future<FileStoreTable>> results = new ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        // one catalog per task, as in separate sink tasks
        Catalog own = TestTables.localCatalog(dir.resolve("warehouse"));
        catalogs.add(own);
        results.add(
            executor.submit(
                () -> {
                  start.await();
                  return LakeTables.createOrOpen(own, spec);
                }));
      }
      start.countDown();
      for (Future<FileStoreTable> result : results) {
        assertThat(result.get().schema().id()).isZero();
        assertThat(result.get().schema().primaryKeys()).containsExactly("id");
      }
    } finally {
      executor.shutdownNow();
      for (Catalog own : catalogs) {
        own.close();
      }
    }
    assertThat(catalog.listTables("race")).containsExactly("orders");
  }

  @Test
  void anExistingTableIsOpenedAsItIs() {
    LakeTables.createOrOpen(catalog, TestTables.spec("db", "t", 2));
    FileStoreTable reopened = LakeTables.createOrOpen(catalog, TestTables.spec("db", "t", 7));
    assertThat(reopened.options()).containsEntry("bucket", "2");
  }

  @Test
  void aSpecWithoutPrimaryKeyCreatesAnAppendOnlyTableEveryWriterCanAppendTo() {
    TableSpec noKey =
        new TableSpec(
            Identifier.create("db", "nokey"),
            TestTables.ID_NAME_AMOUNT,
            List.of(),
            new TableLayout(
                List.of(),
                4,
                MergeEngine.DEDUPLICATE,
                ChangelogProducer.LOOKUP,
                List.of("amount"),
                Map.of()));
    FileStoreTable table = LakeTables.createOrOpen(catalog, noKey);
    assertThat(table.primaryKeys()).isEmpty();
    assertThat(table.bucketMode()).isEqualTo(org.apache.paimon.table.BucketMode.BUCKET_UNAWARE);
    assertThat(table.options()).doesNotContainKeys("merge-engine", "sequence.field");

    try (WriterPool pool = TestTables.smallPool(catalog, dir, "sink-0");
        WriterPool other = TestTables.smallPool(catalog, dir, "sink-1")) {
      SourcePartition partition = new SourcePartition("t", 0);
      pool.writer(noKey.identifier()).write(insert(1, "a", 1L));
      other.writer(noKey.identifier()).write(insert(1, "a", 1L));
      pool.writer(noKey.identifier()).commit(Map.of(partition, 1L));
      other.writer(noKey.identifier()).commit(Map.of(partition, 2L));
    }
    // no key, no merging: both rows stay
    assertThat(LakeRows.read(LakeTables.open(catalog, noKey.identifier())))
        .containsExactly(List.of(1, "a", 1L), List.of(1, "a", 1L));
  }

  @Test
  void aSpecPaimonRejectsNamesTheTable() {
    TableSpec badSequence =
        new TableSpec(
            Identifier.create("db", "badseq"),
            TestTables.ID_NAME_AMOUNT,
            List.of("id"),
            new TableLayout(
                List.of(),
                1,
                MergeEngine.DEDUPLICATE,
                ChangelogProducer.NONE,
                List.of("no_such_column"),
                Map.of()));
    assertThatThrownBy(() -> LakeTables.createOrOpen(catalog, badSequence))
        .hasMessageContaining("db.badseq")
        .hasMessageContaining("no_such_column");
  }

  @Test
  void internalColumnsAreRecognisedByTheirPrefix() {
    assertThat(InternalColumns.isInternal("_changelake_lsn")).isTrue();
    assertThat(InternalColumns.isInternal("lsn")).isFalse();
  }

  @Test
  void databaseCreationLostToAnotherTaskIsNotAnError() throws Exception {
    // the JDBC catalog checks, then inserts: the loser of a race fails on the duplicate row
    Catalog racing =
        createDatabaseFailing(
            catalog,
            name -> {
              catalog.createDatabase(name, true); // the other task wins
              return new RuntimeException("duplicate key value violates unique constraint");
            });

    LakeTables.createDatabaseIfAbsent(racing, "shop");

    assertThat(catalog.getDatabase("shop").name()).isEqualTo("shop");
  }

  @Test
  void databaseThatCannotBeCreatedFailsWithTheCatalogsReason() {
    Catalog broken =
        createDatabaseFailing(
            catalog, name -> new RuntimeException("permission denied for table paimon_databases"));

    assertThatThrownBy(() -> LakeTables.createDatabaseIfAbsent(broken, "shop"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot create database 'shop': permission denied for table paimon_databases");
  }

  /** The error a catalog's createDatabase throws for a database name. */
  private interface CreateFailure {
    RuntimeException failure(String database) throws Exception;
  }

  /** {@code real}, except that createDatabase throws what {@code failure} returns. */
  private static Catalog createDatabaseFailing(Catalog real, CreateFailure failure) {
    return (Catalog)
        java.lang.reflect.Proxy.newProxyInstance(
            Catalog.class.getClassLoader(),
            new Class<?>[] {Catalog.class},
            (proxy, method, args) -> {
              if (method.getName().equals("createDatabase")) {
                throw failure.failure((String) args[0]);
              }
              try {
                return method.invoke(real, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
