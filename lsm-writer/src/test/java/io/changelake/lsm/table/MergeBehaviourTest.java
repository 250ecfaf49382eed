package io.changelake.lsm.table;

import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
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
        List.of(),
        1,
        engine,
        ChangelogProducer.NONE,
        List.of("_changelake_lsn"),
        options);
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
            List.of(),
            -1,
            MergeEngine.DEDUPLICATE,
            ChangelogProducer.NONE,
            List.of(),
            Map.of());
    LakeTables.createOrOpen(catalog, dynamic);
    try (WriterPool pool =
        new WriterPool(
            catalog, new WriterSettings("t", dir.resolve("spill"), 4 << 20, Duration.ZERO))) {
      assertThatThrownBy(() -> pool.writer(Identifier.create("crm", "dynamic")))
          .hasMessageContaining("crm.dynamic")
          .hasMessageContaining("'bucket' >= 1");
    }
  }
}
