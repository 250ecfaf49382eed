package io.changelake.lsm.write;

import static io.changelake.lsm.testing.LakeRows.delete;
import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.OffsetFallbackStore;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.OffsetCopyFault;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.junit.jupiter.api.Test;

class WriterPoolTest extends OrdersTableTest {
  private static final SourcePartition P0 = new SourcePartition("db.inventory.orders", 0);
  private static final SourcePartition P1 = new SourcePartition("db.inventory.orders", 1);

  @Test
  void insertsUpdatesAndDeletesAcrossBucketsAreCommittedWithTheirOffsets() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      for (int id = 1; id <= 10; id++) {
        writer.write(insert(id, "item-" + id, 100L * id));
      }
      writer.write(update(3, "item-3b", 333L));
      writer.write(delete(5, null, null));
      assertThat(writer.hasUncommittedRows()).isTrue();

      CommitResult result = writer.commit(Map.of(P0, 12L, P1, 7L));

      assertThat(result.snapshotId()).isPresent();
      assertThat(result.rowsWritten()).isEqualTo(12);
      assertThat(writer.hasUncommittedRows()).isFalse();
    }
    List<List<Object>> rows = LakeRows.read(table());
    assertThat(rows).hasSize(9).contains(values(3, "item-3b", 333L));
    assertThat(rows).noneMatch(row -> row.get(0).equals(5));
    assertThat(bucketsWithData(table())).containsExactlyInAnyOrder(0, 1);
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 12L, P1, 7L));
  }

  @Test
  void eachCommitReportsTheBytesOfTheFilesItAddedToTheTable() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      for (int id = 1; id <= 10; id++) {
        writer.write(insert(id, "item-" + id, 100L * id));
      }
      CommitResult first = writer.commit(Map.of(P0, 10L));
      assertThat(first.bytesWritten()).isPositive().isEqualTo(dataFileBytes(table()));

      writer.write(update(3, "item-3b", 333L));
      CommitResult second = writer.commit(Map.of(P0, 11L));
      assertThat(second.bytesWritten()).isPositive();
      assertThat(first.bytesWritten() + second.bytesWritten()).isEqualTo(dataFileBytes(table()));
      assertThat(writer.commit(Map.of(P0, 11L)).bytesWritten()).as("nothing written").isZero();

      // a lookup commits what is buffered; the caller sees those bytes with its next commit
      writer.write(insert(12, "item-12", 1200L));
      assertThat(writer.lookup(insert(12, null, null), Map.of(P0, 12L))).isPresent();
      CommitResult afterLookup = writer.commit(Map.of(P0, 12L));
      assertThat(first.bytesWritten() + second.bytesWritten() + afterLookup.bytesWritten())
          .isEqualTo(dataFileBytes(table()));
    }
  }

  @Test
  void aFailedCommitIsRetriedByTheNextCommitWithoutAddingFilesTwice() throws Exception {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "a", 1L));
      writer.write(insert(2, "b", 2L));
      // the snapshot is committed, but the step after it fails: the caller cannot know the commit
      // succeeded, exactly like a timeout on an object store
      try (OffsetCopyFault fault =
          OffsetCopyFault.block(dir.resolve("warehouse/shop.db/orders"), "sink-0")) {
        assertThatThrownBy(() -> writer.commit(Map.of(P0, 2L))).hasMessageContaining("orders");
      }
      assertThat(writer.hasUncommittedRows()).isTrue();

      CommitResult retry = writer.commit(Map.of(P0, 2L));

      assertThat(retry.snapshotId()).as("nothing new was written").isEmpty();
    }
    FileStoreTable table = table();
    assertThat(appendSnapshots(table, "sink-0")).hasSize(1);
    assertThat(rowCountInFiles(table)).isEqualTo(2);
    assertThat(LakeRows.read(table)).containsExactly(values(1, "a", 1L), values(2, "b", 2L));
    assertThat(CommittedOffsets.read(table, "sink-")).isEqualTo(Map.of(P0, 2L));
  }

  @Test
  void commitIdentifiersKeepGrowingAcrossRestartsAndNewDataIsNeverDropped() {
    long firstIdentifier;
    WriterPool crashed = pool("sink-0");
    TableWriter first = crashed.writer(orders);
    first.write(insert(1, "a", 1L));
    firstIdentifier = first.commit(Map.of(P0, 1L)).commitIdentifier();
    first.write(insert(2, "lost in the crash", 2L));
    // no close: the task died; its uncommitted row is re-read from Kafka offset 1

    try (WriterPool restarted = pool("sink-0")) {
      TableWriter writer = restarted.writer(orders);
      assertThat(CommittedOffsets.read(writer.table(), "sink-0")).isEqualTo(Map.of(P0, 1L));
      writer.write(insert(2, "b", 2L));
      CommitResult second = writer.commit(Map.of(P0, 2L));
      writer.write(insert(3, "c", 3L));
      CommitResult third = writer.commit(Map.of(P0, 3L));

      assertThat(second.commitIdentifier()).isGreaterThan(firstIdentifier);
      assertThat(third.commitIdentifier()).isGreaterThan(second.commitIdentifier());
      assertThat(second.snapshotId()).isPresent();
      assertThat(third.snapshotId()).isPresent();
    } finally {
      crashed.close();
    }
    assertThat(LakeRows.read(table()))
        .containsExactly(values(1, "a", 1L), values(2, "b", 2L), values(3, "c", 3L));
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 3L));
  }

  @Test
  void twoWritersOfOneTableEachReportAndRecordTheirOwnSnapshots() throws Exception {
    try (WriterPool task0 = pool("sink-0");
        WriterPool task1 = pool("sink-1")) {
      TableWriter a = task0.writer(orders);
      TableWriter b = task1.writer(orders);
      a.write(insert(1, "a", 1L));
      CommitResult a1 = a.commit(Map.of(P0, 1L));
      b.write(insert(2, "b", 2L));
      CommitResult b1 = b.commit(Map.of(P1, 1L));
      // a's next commit fails after landing; b commits in between; a's retry then commits its
      // landed committable (filtered out) together with new rows
      a.write(insert(3, "c", 3L));
      Path fallbackDir =
          dir.resolve("warehouse/shop.db/orders").resolve(OffsetFallbackStore.DIRECTORY);
      Path aFile =
          Files.list(fallbackDir)
              .filter(f -> f.toString().contains("sink-0"))
              .findFirst()
              .orElseThrow();
      Files.delete(aFile);
      Files.createDirectory(aFile);
      assertThatThrownBy(() -> a.commit(Map.of(P0, 2L))).hasMessageContaining("orders");
      Files.delete(aFile);
      b.write(insert(4, "d", 4L));
      CommitResult b2 = b.commit(Map.of(P1, 2L));
      a.write(insert(5, "e", 5L));
      CommitResult a3 = a.commit(Map.of(P0, 3L));

      FileStoreTable table = table();
      for (var pair :
          List.of(
              Map.entry("sink-0", a1),
              Map.entry("sink-1", b1),
              Map.entry("sink-1", b2),
              Map.entry("sink-0", a3))) {
        Snapshot snapshot =
            table.snapshotManager().snapshot(pair.getValue().snapshotId().getAsLong());
        assertThat(snapshot.commitUser()).isEqualTo(pair.getKey());
        assertThat(snapshot.commitIdentifier()).isEqualTo(pair.getValue().commitIdentifier());
      }
      OffsetFallbackStore store = new OffsetFallbackStore(table);
      assertThat(store.read("sink-0"))
          .isEqualTo(Map.of(P0, new OffsetFallbackStore.Entry(3L, a3.snapshotId().getAsLong())));
      assertThat(store.read("sink-1"))
          .isEqualTo(Map.of(P1, new OffsetFallbackStore.Entry(2L, b2.snapshotId().getAsLong())));
    }
    assertThat(LakeRows.read(table()))
        .containsExactlyInAnyOrder(
            values(1, "a", 1L),
            values(2, "b", 2L),
            values(3, "c", 3L),
            values(4, "d", 4L),
            values(5, "e", 5L));
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 3L, P1, 2L));
  }

  @Test
  void theEarliestSnapshotHintIsWrittenSoCommitsDoNotListTheSnapshotDirectory() throws Exception {
    Path hint = dir.resolve("warehouse/shop.db/orders/snapshot/EARLIEST");
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "a", 1L));
      writer.commit(Map.of(P0, 1L));
      writer.write(insert(2, "b", 2L));
      writer.commit(Map.of(P0, 2L));
      writer.write(insert(3, "c", 3L));
      writer.commit(Map.of(P0, 3L));
    }
    FileStoreTable table = table();
    assertThat(hint).exists();
    assertThat(Files.readString(hint).trim()).isEqualTo("1");
    assertThat(table.snapshotManager().earliestSnapshotId()).isEqualTo(1L);
    assertThat(table.snapshotManager().latestSnapshotId()).isEqualTo(3L);
    assertThat(LakeRows.read(table))
        .containsExactly(values(1, "a", 1L), values(2, "b", 2L), values(3, "c", 3L));
  }

  @Test
  void ingestWritersWriteSmallParquetPagesUnlessTheTableSetsItsOwn() {
    Identifier own = Identifier.create("shop", "own_pages");
    LakeTables.createOrOpen(
        catalog,
        TestTables.spec(
            "shop", "own_pages", 2, ChangelogProducer.NONE, Map.of("parquet.page.size", "65536")));
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      assertThat(writer.table().options()).containsEntry("parquet.page.size", "262144");
      for (int id = 1; id <= 2_000; id++) {
        writer.write(insert(id, "item-" + id + "-".repeat(200), (long) id));
      }
      writer.commit(Map.of(P0, 2_000L));
      assertThat(pool.writer(own).table().options()).containsEntry("parquet.page.size", "65536");
    }
    // the table keeps Parquet's default for its other writers (compaction)
    assertThat(table().options()).doesNotContainKey("parquet.page.size");
    assertThat(LakeRows.read(table())).hasSize(2_000);
  }

  @Test
  void aCommitWithoutRowsCreatesNoSnapshot() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      CommitResult result = writer.commit(Map.of(P0, 5L));
      assertThat(result.snapshotId()).isEmpty();
      assertThat(result.rowsWritten()).isZero();
    }
    assertThat(table().snapshotManager().latestSnapshotId()).isNull();
  }

  @Test
  void aHundredTablesShareOneMemoryBudget() {
    long budget = 8L << 20; // 128 pages of 64 KiB for 100 tables of 80 KiB each
    int tables = 100;
    List<Identifier> ids = new ArrayList<>();
    for (int t = 0; t < tables; t++) {
      Identifier id = Identifier.create("many", "t" + t);
      LakeTables.createOrOpen(catalog, TestTables.spec("many", "t" + t, 1));
      ids.add(id);
    }
    try (WriterPool pool =
        new WriterPool(
            catalog, new WriterSettings("sink-0", dir.resolve("spill"), budget, Duration.ZERO))) {
      long maxBuffered = 0;
      for (int round = 0; round < 50; round++) {
        for (Identifier id : ids) {
          pool.writer(id).write(insert(round, "x".repeat(1600), (long) round));
        }
        maxBuffered = Math.max(maxBuffered, pool.bufferedBytes());
      }
      assertThat(pool.memoryBudgetBytes()).isEqualTo(budget);
      assertThat(maxBuffered).isPositive().isLessThanOrEqualTo(budget);
      assertThat(pool.memoryPreemptions())
          .as("tables flushed each other to stay within the budget")
          .isPositive();
      for (Identifier id : ids) {
        pool.writer(id).commit(Map.of(P0, 50L));
      }
    }
    assertThat(LakeRows.read(LakeTables.open(catalog, ids.get(tables - 1)))).hasSize(50);
  }

  @Test
  void spillableBuffersSpillToTheSpillDirectory() throws Exception {
    Identifier spilled = Identifier.create("shop", "spilled");
    LakeTables.createOrOpen(
        catalog,
        TestTables.spec(
            "shop",
            "spilled",
            1,
            ChangelogProducer.NONE,
            Map.of("write-buffer-spillable", "true")));
    Path spill = dir.resolve("spill-dir");
    try (WriterPool pool =
        new WriterPool(catalog, new WriterSettings("sink-0", spill, 1L << 20, Duration.ZERO))) {
      TableWriter writer = pool.writer(spilled);
      for (int i = 0; i < 20_000; i++) {
        writer.write(insert(i, "y".repeat(100), (long) i));
      }
      try (Stream<Path> files = Files.walk(spill)) {
        assertThat(files.filter(Files::isRegularFile)).isNotEmpty();
      }
      writer.commit(Map.of(P0, 20_000L));
    }
    assertThat(LakeRows.read(LakeTables.open(catalog, spilled))).hasSize(20_000);
  }

  @Test
  void idleWritersAreClosedOnlyOnceTheirDataIsCommitted() {
    Identifier other = Identifier.create("shop", "other");
    LakeTables.createOrOpen(catalog, TestTables.spec("shop", "other", 1));
    try (WriterPool pool = pool("sink-0")) {
      pool.writer(orders).write(insert(1, "a", 1L));
      pool.writer(other).write(insert(1, "a", 1L));
      pool.writer(other).commit(Map.of(P0, 2L));

      pool.closeIdle();

      assertThat(pool.openTables()).containsExactly(orders);
      pool.writer(orders).commit(Map.of(P0, 2L));
      pool.closeIdle();
      assertThat(pool.openTables()).isEmpty();
      assertThat(pool.bufferedBytes()).isZero();
      // a closed table reopens on demand and keeps its identifiers growing
      CommitResult again = commitOne(pool, other, 2);
      assertThat(again.snapshotId()).isPresent();
    }
    assertThat(LakeRows.read(LakeTables.open(catalog, other))).hasSize(2);
  }

  @Test
  void idleTimeoutKeepsRecentlyUsedWritersOpen() {
    try (WriterPool pool =
        new WriterPool(
            catalog,
            new WriterSettings("sink-0", dir.resolve("spill"), 8 << 20, Duration.ofHours(1)))) {
      commitOne(pool, orders, 1);
      pool.closeIdle();
      assertThat(pool.openTables()).containsExactly(orders);
    }
  }

  private static CommitResult commitOne(WriterPool pool, Identifier table, int id) {
    TableWriter writer = pool.writer(table);
    writer.write(insert(id, "r" + id, (long) id));
    return writer.commit(Map.of(P0, (long) id));
  }

  static List<Snapshot> appendSnapshots(FileStoreTable table, String user) {
    List<Snapshot> snapshots = new ArrayList<>();
    Long latest = table.snapshotManager().latestSnapshotId();
    for (long id = 1; latest != null && id <= latest; id++) {
      Snapshot snapshot = table.snapshotManager().snapshot(id);
      if (snapshot.commitUser().equals(user)
          && snapshot.commitKind() == Snapshot.CommitKind.APPEND) {
        snapshots.add(snapshot);
      }
    }
    return snapshots;
  }

  static long rowCountInFiles(FileStoreTable table) {
    long rows = 0;
    for (Split split : table.newReadBuilder().newScan().plan().splits()) {
      rows += ((DataSplit) split).rowCount();
    }
    return rows;
  }

  private static List<Integer> bucketsWithData(FileStoreTable table) {
    return table.newReadBuilder().newScan().plan().splits().stream()
        .map(split -> ((DataSplit) split).bucket())
        .distinct()
        .toList();
  }

  private static long dataFileBytes(FileStoreTable table) {
    long bytes = 0;
    for (Split split : table.newReadBuilder().newScan().plan().splits()) {
      for (var file : ((DataSplit) split).dataFiles()) {
        bytes += file.fileSize();
      }
    }
    return bytes;
  }
}
