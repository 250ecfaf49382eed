package io.changelake.lsm.table;

import static io.changelake.lsm.testing.LakeRows.delete;
import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What users rely on from the merge engines and sequence fields, through our writers. */
class MergeBehaviourTest {
  private static final RowType SEQUENCED =
      RowType.builder()
          .field("id", DataTypes.INT().notNull())
          .field("name", DataTypes.STRING())
          .field("email", DataTypes.STRING())
          .field("_changelake_lsn", DataTypes.BIGINT())
          .build();

  @TempDir Path dir;
  private Catalog catalog;

  @BeforeEach
  void setUp() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  private TableSpec spec(String name, MergeEngine engine, Map<String, String> options) {
    return new TableSpec(
        Identifier.create("crm", name),
        SEQUENCED,
        List.of("id"),
        new TableLayout(
            List.of(), 1, engine, ChangelogProducer.NONE, List.of("_changelake_lsn"), options));
  }

  private void commitAs(String task, String table, GenericRow row) {
    try (WriterPool pool =
        new WriterPool(
            catalog,
            new WriterSettings(task, dir.resolve("spill-" + task), 4 << 20, Duration.ZERO))) {
      pool.writer(Identifier.create("crm", table)).write(row);
      pool.writer(Identifier.create("crm", table)).commit(Map.of(new SourcePartition("t", 0), 1L));
    }
  }

  @Test
  void theSequenceFieldDecidesWhichVersionWinsWhateverTheCommitOrder() {
    LakeTables.createOrOpen(catalog, spec("customers", MergeEngine.DEDUPLICATE, Map.of()));
    // a zombie task commits an older change after the newer one
    commitAs("sink-1", "customers", insert(1, "new", "new@x", 200L));
    commitAs("sink-0", "customers", insert(1, "stale", "stale@x", 100L));

    assertThat(LakeRows.read(LakeTables.open(catalog, Identifier.create("crm", "customers"))))
        .containsExactly(values(1, "new", "new@x", 200L));
  }

  @Test
  void partialUpdateMergesColumnsFromSeveralWriters() {
    LakeTables.createOrOpen(catalog, spec("wide", MergeEngine.PARTIAL_UPDATE, Map.of()));
    commitAs("sink-0", "wide", insert(1, "ann", null, 1L));
    commitAs("sink-1", "wide", insert(1, null, "ann@x", 2L));

    assertThat(LakeRows.read(LakeTables.open(catalog, Identifier.create("crm", "wide"))))
        .containsExactly(values(1, "ann", "ann@x", 2L));
  }

  @Test
  void dynamicBucketTablesAreRefusedByTheWriterWithWhatToChange() {
    TableSpec dynamic =
        new TableSpec(
            Identifier.create("crm", "dynamic"),
            SEQUENCED,
            List.of("id"),
            new TableLayout(
                List.of(),
                -1,
                MergeEngine.DEDUPLICATE,
                ChangelogProducer.NONE,
                List.of(),
                Map.of()));
    LakeTables.createOrOpen(catalog, dynamic);
    try (WriterPool pool =
        new WriterPool(
            catalog, new WriterSettings("t", dir.resolve("spill"), 4 << 20, Duration.ZERO))) {
      assertThatThrownBy(() -> pool.writer(Identifier.create("crm", "dynamic")))
          .hasMessageContaining("crm.dynamic")
          .hasMessageContaining("'bucket' >= 1");
    }
  }

  private static final Identifier GROUPED = Identifier.create("crm", "grouped");

  private static Map<SourcePartition, Long> offsets(long offset) {
    return Map.of(new SourcePartition("t", 0), offset);
  }

  /**
   * e2e WideTableTest kept a deleted side's columns for keys updated and deleted in one round: the
   * writer reopened after the ALTER had the new columns but not their group (Paimon's
   * copyWithLatestSchema keeps the old options), so its buffer merged the group's delete away.
   */
  @Test
  void aWriterReopenedAfterAnAlterAddingASequenceGroupMergesTheGroupsDeletes() throws Exception {
    createGrouped();
    try (WriterPool pool =
        new WriterPool(
            catalog, new WriterSettings("t", dir.resolve("spill"), 4 << 20, Duration.ZERO))) {
      TableWriter writer = pool.writer(GROUPED);
      writer.write(insert(1, "ann", 1L));
      writer.commit(offsets(1));
      catalog.alterTable(
          GROUPED,
          List.of(
              SchemaChange.addColumn("score", DataTypes.STRING()),
              SchemaChange.addColumn("s2", DataTypes.BIGINT()),
              SchemaChange.setOption("fields.s2.sequence-group", "score")),
          false);
      writer.reopen(offsets(1));
      writer.write(insert(1, null, null, "10", 10L));
      writer.commit(offsets(2));
      // one round: an update of the second group, then its delete (only the group's sequence set)
      writer.write(update(1, null, null, "11", 11L));
      writer.write(delete(1, null, null, null, 12L));
      writer.commit(offsets(4));
    }
    assertThat(LakeRows.read(LakeTables.open(catalog, GROUPED)))
        .containsExactly(values(1, "ann", 1L, null, 12L));
  }

  /**
   * The compactor's merge of the group's update and delete, from a table loaded before the ALTER.
   */
  @Test
  void aCompactorGivenATableLoadedBeforeTheAlterMergesWithTheNewGroup() throws Exception {
    FileStoreTable loadedBefore = createGrouped();
    catalog.alterTable(
        GROUPED,
        List.of(
            SchemaChange.addColumn("score", DataTypes.STRING()),
            SchemaChange.addColumn("s2", DataTypes.BIGINT()),
            SchemaChange.setOption("fields.s2.sequence-group", "score")),
        false);
    commitAs("sink-0", "grouped", insert(1, "ann", 1L, "10", 10L));
    commitAs("sink-0", "grouped", update(1, null, null, "11", 11L));
    commitAs("sink-0", "grouped", delete(1, null, null, null, 12L));

    new Compactor(CompactionSettings.defaults("compactor"), dir.resolve("compaction"))
        .compact(loadedBefore, true);

    assertThat(LakeRows.read(LakeTables.open(catalog, GROUPED)))
        .containsExactly(values(1, "ann", 1L, null, 12L));
  }

  /** The partial-update lookup table {@code GROUPED}: id, name, and name's sequence group s1. */
  private FileStoreTable createGrouped() {
    RowType first =
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("name", DataTypes.STRING())
            .field("s1", DataTypes.BIGINT())
            .build();
    return LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            GROUPED,
            first,
            List.of("id"),
            new TableLayout(
                List.of(),
                1,
                MergeEngine.PARTIAL_UPDATE,
                ChangelogProducer.LOOKUP,
                List.of(),
                Map.of("fields.s1.sequence-group", "name"))));
  }
}
