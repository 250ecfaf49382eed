package io.changelake.lsm.write;

import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.CommittedPartition;
import io.changelake.lsm.commit.OffsetFallbackStore;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.commit.TruncateMarker;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;

class TableWriterTruncateTest extends OrdersTableTest {
  private static final SourcePartition P0 = new SourcePartition("db.inventory.orders", 0);
  private static final SourcePartition P1 = new SourcePartition("db.inventory.orders", 1);

  @Test
  void truncateEmptiesTheTableAndRowsWrittenAfterItSurvive() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      for (int id = 1; id <= 10; id++) {
        writer.write(insert(id, "item-" + id, (long) id));
      }
      CommitResult first = writer.commit(Map.of(P0, 10L));
      // buffered before the truncate record: the truncate deletes it
      writer.write(update(3, "buffered", 33L));

      CommitResult truncate = writer.truncate(Map.of(P0, 12L, P1, 4L));

      assertThat(truncate.snapshotId()).isPresent();
      assertThat(truncate.rowsWritten()).isEqualTo(1);
      assertThat(truncate.commitIdentifier()).isGreaterThan(first.commitIdentifier());
      assertThat(writer.hasUncommittedRows()).isFalse();
      assertThat(LakeRows.read(table())).isEmpty();
      Snapshot snapshot = table().snapshotManager().latestSnapshot();
      assertThat(snapshot.commitKind()).isEqualTo(Snapshot.CommitKind.OVERWRITE);
      assertThat(snapshot.properties()).containsEntry(TruncateMarker.PROPERTY, "true");
      assertThat(TruncateMarker.isTruncate(snapshot)).isTrue();
      assertThat(snapshot.commitIdentifier()).isEqualTo(truncate.commitIdentifier());
      assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 12L, P1, 4L));

      writer.write(insert(11, "after", 11L));
      writer.write(insert(3, "again", 3L));
      CommitResult after = writer.commit(Map.of(P0, 14L, P1, 4L));

      assertThat(after.commitIdentifier()).isGreaterThan(truncate.commitIdentifier());
      assertThat(after.snapshotId()).isPresent();
    }
    assertThat(LakeRows.read(table()))
        .containsExactly(values(11, "after", 11L), values(3, "again", 3L));
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 14L, P1, 4L));
    assertThat(WriterPoolTest.rowCountInFiles(table())).isEqualTo(2);
  }

  @Test
  void rowsTheKeepFilterAcceptsSurviveTheTruncateCommittedOrBufferedAndFromOtherWriters() {
    try (WriterPool pool = pool("sink-0");
        WriterPool other = pool("sink-1")) {
      TableWriter writer = pool.writer(orders);
      // the third column stands for the source position; the truncate is at 100
      writer.write(insert(1, "before, committed", 10L));
      writer.write(insert(2, "after, committed", 150L));
      writer.commit(Map.of(P0, 2L));
      TableWriter otherWriter = other.writer(orders);
      otherWriter.write(insert(3, "after, another writer", 120L));
      otherWriter.write(insert(4, "before, another writer", 90L));
      otherWriter.commit(Map.of(P1, 2L));
      writer.write(insert(5, "after, buffered", 101L));
      writer.write(insert(6, "before, buffered", 99L));

      CommitResult truncate =
          writer.truncate(
              new SourceProgress(Map.of(P0, 4L), Map.of(P0, "before")),
              new SourceProgress(Map.of(P0, 5L), Map.of(P0, "after")),
              row -> row.getLong(2) > 100);

      assertThat(truncate.snapshotId()).isPresent();
      Snapshot snapshot = table().snapshotManager().latestSnapshot();
      assertThat(snapshot.id()).isEqualTo(truncate.snapshotId().getAsLong());
      assertThat(snapshot.commitKind()).isEqualTo(Snapshot.CommitKind.OVERWRITE);
      assertThat(snapshot.properties()).containsEntry(TruncateMarker.PROPERTY, "true");
      assertThat(CommittedOffsets.readPartitions(table(), "sink-0"))
          .isEqualTo(Map.of(P0, new CommittedPartition(5L, Optional.of("after"))));
      assertThat(writer.hasUncommittedRows()).isFalse();

      writer.write(insert(7, "written after the truncate", 200L));
      writer.commit(Map.of(P0, 6L));
    }
    assertThat(LakeRows.read(table()))
        .containsExactlyInAnyOrder(
            values(2, "after, committed", 150L),
            values(3, "after, another writer", 120L),
            values(5, "after, buffered", 101L),
            values(7, "written after the truncate", 200L));
    assertThat(WriterPoolTest.rowCountInFiles(table())).isEqualTo(4);
  }

  @Test
  void aRetriedTruncateThatHadLandedDoesNotDeleteRowsCommittedAfterIt() throws Exception {
    try (WriterPool pool = pool("sink-0");
        WriterPool other = pool("sink-1")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "before", 1L));
      writer.commit(Map.of(P0, 1L));
      // the truncate snapshot lands, but the step after it fails: the caller cannot know
      Path fallbackDir =
          dir.resolve("warehouse/shop.db/orders").resolve(OffsetFallbackStore.DIRECTORY);
      Path fallbackCopy = dir.resolve("fallback-copy");
      Files.move(fallbackDir, fallbackCopy);
      Files.writeString(fallbackDir, "in the way");
      assertThatThrownBy(() -> writer.truncate(Map.of(P0, 2L)))
          .hasMessageContaining("Truncating table shop.orders")
          .hasMessageContaining("retries");
      assertThat(writer.hasUncommittedRows()).as("the truncate is pending").isTrue();
      Files.delete(fallbackDir);
      Files.move(fallbackCopy, fallbackDir);
      // another task commits a row of another partition after the truncate
      TableWriter otherWriter = other.writer(orders);
      otherWriter.write(insert(2, "other task, after the truncate", 2L));
      otherWriter.commit(Map.of(P1, 1L));
      writer.write(insert(3, "this task, after the truncate", 3L));

      CommitResult retry = writer.commit(Map.of(P0, 3L));

      assertThat(retry.snapshotId()).isPresent();
      assertThat(writer.hasUncommittedRows()).isFalse();
    }
    assertThat(LakeRows.read(table()))
        .containsExactly(
            values(2, "other task, after the truncate", 2L),
            values(3, "this task, after the truncate", 3L));
    assertThat(overwriteSnapshots(table())).as("the truncate landed once").hasSize(1);
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 3L, P1, 1L));
  }

  @Test
  void aRestartedWriterKeepsIdentifiersGrowingPastTheTruncateAndReadsItsOffsets() {
    long truncateIdentifier;
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "a", 1L));
      writer.commit(Map.of(P0, 1L));
      truncateIdentifier = writer.truncate(Map.of(P0, 2L)).commitIdentifier();
    }
    assertThat(CommittedOffsets.read(table(), "sink-0")).isEqualTo(Map.of(P0, 2L));
    try (WriterPool restarted = pool("sink-0")) {
      TableWriter writer = restarted.writer(orders);
      writer.write(insert(2, "b", 2L));
      CommitResult next = writer.commit(Map.of(P0, 3L));
      assertThat(next.commitIdentifier()).isGreaterThan(truncateIdentifier);
      assertThat(next.snapshotId()).as("not dropped as already committed").isPresent();
    }
    assertThat(LakeRows.read(table())).containsExactly(values(2, "b", 2L));
  }

  @Test
  void truncatingAnEmptyTableRecordsItsOffsets() {
    try (WriterPool pool = pool("sink-0")) {
      CommitResult truncate = pool.writer(orders).truncate(Map.of(P0, 7L));
      assertThat(truncate.snapshotId()).isPresent();
    }
    assertThat(LakeRows.read(table())).isEmpty();
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 7L));
  }

  @Test
  void truncateEmptiesEveryPartitionOfAPartitionedTable() {
    Identifier byRegion = Identifier.create("shop", "by_region");
    LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            byRegion,
            TestTables.ID_NAME_AMOUNT.copy(
                List.of(
                    TestTables.ID_NAME_AMOUNT.getFields().get(0),
                    TestTables.ID_NAME_AMOUNT
                        .getFields()
                        .get(1)
                        .newType(TestTables.ID_NAME_AMOUNT.getTypeAt(1).copy(false)),
                    TestTables.ID_NAME_AMOUNT.getFields().get(2))),
            List.of("id", "name"),
            new TableLayout(
                List.of("name"),
                2,
                MergeEngine.DEDUPLICATE,
                ChangelogProducer.NONE,
                List.of(),
                Map.of())));
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(byRegion);
      writer.write(insert(1, "eu", 1L));
      writer.write(insert(2, "us", 2L));
      writer.write(insert(3, "apac", 3L));
      writer.commit(Map.of(P0, 3L));
      assertThat(LakeRows.read(LakeTables.open(catalog, byRegion))).hasSize(3);

      writer.truncate(Map.of(P0, 4L));

      writer.write(insert(4, "eu", 4L));
      writer.commit(Map.of(P0, 5L));
    }
    assertThat(LakeRows.read(LakeTables.open(catalog, byRegion)))
        .containsExactly(values(4, "eu", 4L));
  }

  private static List<Snapshot> overwriteSnapshots(FileStoreTable table) {
    List<Snapshot> snapshots = new ArrayList<>();
    Long latest = table.snapshotManager().latestSnapshotId();
    for (long id = 1; latest != null && id <= latest; id++) {
      Snapshot snapshot = table.snapshotManager().snapshot(id);
      if (snapshot.commitKind() == Snapshot.CommitKind.OVERWRITE) {
        snapshots.add(snapshot);
      }
    }
    return snapshots;
  }
}
