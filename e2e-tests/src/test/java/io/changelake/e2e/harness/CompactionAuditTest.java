package io.changelake.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.CompactionAudit;
import io.changelake.e2e.compare.SnapshotAudit;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 13's ownership checks ({@link CompactionAudit#problems}, and {@link SnapshotAudit} for
 * the files), each shown to fail on a real Paimon table written by two write-only "tasks" when
 * ownership is broken: nobody compacts (the table stays at level 0, and no task counts a
 * compaction), every task compacts (the per-task counts show two compactors), and two compactors
 * race on one commit (Paimon drops one's commit for its identifier, silently, and its files stay
 * behind). Compacted by one compactor, the same table passes.
 */
class CompactionAuditTest {
  private static final String COMPACTOR = "c-compactor";

  @TempDir Path warehouse;
  private Catalog catalog;
  private FileStoreTable table;

  @BeforeEach
  void writeFromTwoTasks() throws Exception {
    catalog =
        CatalogFactory.createCatalog(
            CatalogContext.create(
                Options.fromMap(
                    Map.of("warehouse", warehouse.toUri().toString(), "cache-enabled", "false"))));
    catalog.createDatabase("audit", true);
    Identifier id = Identifier.create("audit", "t");
    catalog.createTable(
        id,
        Schema.newBuilder()
            .column("id", DataTypes.INT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .option("bucket", "1")
            .option("write-only", "true")
            .build(),
        false);
    table = (FileStoreTable) catalog.getTable(id);
    for (int task = 0; task < 2; task++) {
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("c-task-" + task);
      try (StreamTableWrite write = builder.newWrite();
          StreamTableCommit commit = builder.newCommit()) {
        for (long identifier = 1; identifier <= 3; identifier++) {
          write.write(GenericRow.of((int) identifier, BinaryString.fromString("task " + task)));
          commit.filterAndCommit(Map.of(identifier, write.prepareCommit(false, identifier)));
        }
      }
    }
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
  }

  @Test
  void aTableCompactedByOneTaskPasses() {
    new Compactor(CompactionSettings.defaults(COMPACTOR), warehouse.resolve("spill"))
        .compact(table, true);

    assertThat(audit().problems(2, Map.of(0, 0L, 1, 4L))).isEmpty();
    assertThat(SnapshotAudit.of(table, tableDirectory()).lostSnapshots(Map.of())).isEmpty();
  }

  @Test
  void aTableNobodyCompactsIsCaughtByItsFilesAndTheCounts() {
    assertThat(audit().problems(2, Map.of(0, 0L, 1, 0L)))
        .containsExactly(
            "audit.t: no compaction snapshot",
            "audit.t: bucket 0 has level-0 files only",
            "audit.t: 6 live level-0 files of the 6 ingest added: none compacted away",
            "audit.t: compacted by no task (table-compactions-total per task: {0=0, 1=0}),"
                + " expected exactly one");
  }

  @Test
  void everyTaskCompactingIsCaughtByTheCounts() {
    // two compactors one after the other: both succeed, and the table looks compacted
    new Compactor(CompactionSettings.defaults(COMPACTOR), warehouse.resolve("spill"))
        .compact(table, true);
    new Compactor(CompactionSettings.defaults(COMPACTOR), warehouse.resolve("spill"))
        .compact(table, true);

    assertThat(audit().problems(2, Map.of(0, 2L, 1, 3L)))
        .containsExactly(
            "audit.t: compacted by tasks [0, 1] (table-compactions-total per task: {0=2, 1=3}),"
                + " expected exactly one");
  }

  @Test
  void twoCompactorsRacingOnOneCommitLeaveTheLosersFilesBehind() throws Exception {
    // both read the same files and take the same identifier; Paimon drops the second commit
    List<CommitMessage> first = compactInto(1);
    List<CommitMessage> second = compactInto(1);
    // committed as lsm-writer's Compactor commits (a table commit: no empty append snapshot)
    try (TableCommitImpl commit = compactorTable().newCommit(COMPACTOR)) {
      commit.filterAndCommit(Map.of(1L, first));
    }
    try (TableCommitImpl commit = compactorTable().newCommit(COMPACTOR)) {
      commit.filterAndCommit(Map.of(1L, second));
    }

    assertThat(audit().problems(2, Map.of(0, 1L, 1, 0L))).as("the table looks compacted").isEmpty();
    assertThat(SnapshotAudit.of(table, tableDirectory()).lostSnapshots(Map.of()))
        .singleElement()
        .satisfies(p -> assertThat(p).startsWith("audit.t: files no snapshot added: [data-"));
  }

  private List<CommitMessage> compactInto(long identifier) throws Exception {
    try (IOManager io = IOManager.create(warehouse.resolve("spill").toString());
        TableWriteImpl<?> write = compactorTable().newWrite(COMPACTOR).withIOManager(io)) {
      write.compact(BinaryRow.EMPTY_ROW, 0, true);
      return write.prepareCommit(true, identifier);
    }
  }

  private FileStoreTable compactorTable() {
    return table.copy(Map.of("write-only", "false"));
  }

  private CompactionAudit audit() {
    return CompactionAudit.of(table.copyWithLatestSchema());
  }

  private Path tableDirectory() {
    return warehouse.resolve("audit.db").resolve("t");
  }
}
