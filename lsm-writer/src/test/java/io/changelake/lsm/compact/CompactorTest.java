package io.changelake.lsm.compact;

import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.OffsetFallbackStore;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactorTest {
  @TempDir Path dir;
  private Catalog catalog;
  private final Identifier orders = Identifier.create("shop", "orders");

  @BeforeEach
  void setUp() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
    LakeTables.createOrOpen(catalog, TestTables.spec("shop", "orders", 2));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  private FileStoreTable table() {
    return LakeTables.open(catalog, orders);
  }

  private Compactor compactor(CompactionSettings settings) {
    return new Compactor(settings, dir.resolve("compactor-spill"));
  }

  /** Each task writes its own keys `task * 1000 + i`, committing after every row. */
  private void ingest(int task, int commits) throws Exception {
    SourcePartition partition = new SourcePartition("orders", task);
    try (Catalog own = TestTables.localCatalog(dir.resolve("warehouse"));
        WriterPool pool =
            new WriterPool(
                own,
                new WriterSettings(
                    "sink-" + task, dir.resolve("spill-" + task), 4 << 20, Duration.ZERO))) {
      TableWriter writer = pool.writer(orders);
      for (int i = 0; i < commits; i++) {
        writer.write(insert(task * 1000 + i, "v1", (long) i));
        writer.write(update(task * 1000 + i, "v2", (long) i));
        writer.commit(Map.of(partition, i + 1L));
      }
    }
  }

  private Void ingestTask(int task, int commits) throws Exception {
    ingest(task, commits);
    return null;
  }

  @Test
  void compactionNeverConflictsWithSeveralTasksCommittingToTheSameBuckets() throws Exception {
    int commits = 12;
    ExecutorService executor = Executors.newFixedThreadPool(3);
    AtomicBoolean ingesting = new AtomicBoolean(true);
    try {
      Future<?> task0 = executor.submit(() -> ingestTask(0, commits));
      Future<?> task1 = executor.submit(() -> ingestTask(1, commits));
      Future<Integer> rounds =
          executor.submit(
              () -> {
                Compactor compactor = compactor(CompactionSettings.defaults("compactor"));
                int done = 0;
                while (ingesting.get()) {
                  if (compactor.compact(table(), false).snapshotId().isPresent()) {
                    done++;
                  }
                }
                return done;
              });
      task0.get();
      task1.get();
      ingesting.set(false);
      assertThat(rounds.get()).isPositive();
    } finally {
      executor.shutdownNow();
    }

    List<List<Object>> rows = LakeRows.read(table());
    assertThat(rows).hasSize(2 * commits).allMatch(row -> row.get(1).equals("v2"));
    assertThat(CommittedOffsets.read(table(), "sink-"))
        .isEqualTo(
            Map.of(
                new SourcePartition("orders", 0), (long) commits,
                new SourcePartition("orders", 1), (long) commits));
    assertThat(snapshots(table(), Snapshot.CommitKind.COMPACT)).isPositive();
    assertThat(snapshots(table(), Snapshot.CommitKind.APPEND)).isEqualTo(2 * commits);
  }

  @Test
  void fullCompactionLeavesOneFilePerBucketAndKeepsTheRows() throws Exception {
    for (int task = 0; task < 2; task++) {
      ingest(task, 5);
    }
    List<List<Object>> before = LakeRows.read(table());
    assertThat(dataFiles(table())).isGreaterThan(2);

    Compactor compactor = compactor(CompactionSettings.defaults("compactor"));
    CompactionResult first = compactor.compact(table(), true);
    CompactionResult nothingLeft = compactor.compact(table(), true);

    assertThat(first.snapshotId()).isPresent();
    assertThat(first.bucketsCompacted()).isEqualTo(2);
    assertThat(nothingLeft.commitIdentifier()).isGreaterThan(first.commitIdentifier());
    assertThat(dataFiles(table())).isEqualTo(2);
    assertThat(LakeRows.read(table())).isEqualTo(before);
    // what the round reports it wrote and left is what the table now holds
    assertThat(first.filesAfter()).isEqualTo(new BucketFiles(2, 1, 2));
    assertThat(first.bytesWritten()).isEqualTo(dataFileBytes(table()));
    assertThat(nothingLeft.filesAfter()).isEqualTo(new BucketFiles(2, 1, 2));
  }

  @Test
  void maintenanceExpiresSnapshotsPerSettingsAndDeletesOnlyOldOrphans() throws Exception {
    ingest(0, 6);
    Path tableDir = dir.resolve("warehouse/shop.db/orders");
    Path bucket = tableDir.resolve("bucket-0");
    Path oldOrphan = Files.writeString(bucket.resolve("data-orphan-old.parquet"), "junk");
    Files.setLastModifiedTime(oldOrphan, FileTime.from(Instant.now().minus(Duration.ofDays(3))));
    Path youngOrphan = Files.writeString(bucket.resolve("data-orphan-young.parquet"), "junk");
    Path offsetCopy = tableDir.resolve(OffsetFallbackStore.DIRECTORY).resolve("sink-0.properties");
    Files.setLastModifiedTime(offsetCopy, FileTime.from(Instant.now().minus(Duration.ofDays(3))));
    List<List<Object>> rows = LakeRows.read(table());

    MaintenanceResult result =
        compactor(
                new CompactionSettings("compactor", 2, 3, Duration.ofHours(1), Duration.ofDays(1)))
            .maintain(table());

    assertThat(result.earliestSnapshotBefore()).isEqualTo(1);
    assertThat(result.earliestSnapshotAfter()).isEqualTo(4);
    assertThat(result.snapshotsExpired()).isEqualTo(3);
    assertThat(table().snapshotManager().earliestSnapshotId()).isEqualTo(4L);
    assertThat(result.orphanFilesDeleted()).isEqualTo(1);
    assertThat(oldOrphan).doesNotExist();
    assertThat(youngOrphan).exists();
    assertThat(offsetCopy).exists();
    assertThat(LakeRows.read(table())).isEqualTo(rows);
    assertThat(CommittedOffsets.read(table(), "sink-"))
        .isEqualTo(Map.of(new SourcePartition("orders", 0), 6L));

    // orphans are cleaned again only once they could have come of age since the last clean-up;
    // this compactor's clock runs a day ahead, where the young orphan would be of age too
    Files.delete(youngOrphan);
    AtomicLong now = new AtomicLong(System.currentTimeMillis());
    Compactor ticking =
        new Compactor(
            new CompactionSettings("compactor", 2, 3, Duration.ofHours(1), Duration.ofDays(1)),
            dir.resolve("compactor-spill"),
            now::get,
            () -> {});
    assertThat(ticking.maintain(table()).orphanFilesDeleted()).isZero();
    Path laterOrphan = Files.writeString(bucket.resolve("data-orphan-later.parquet"), "junk");
    Files.setLastModifiedTime(laterOrphan, FileTime.from(Instant.now().minus(Duration.ofDays(3))));
    now.addAndGet(Duration.ofHours(23).toMillis());
    assertThat(ticking.maintain(table()).orphanFilesDeleted()).as("within a day").isZero();
    assertThat(laterOrphan).exists();
    now.addAndGet(Duration.ofHours(1).toMillis());
    assertThat(ticking.maintain(table()).orphanFilesDeleted()).as("a day later").isEqualTo(1);
    assertThat(laterOrphan).doesNotExist();
    assertThat(LakeRows.read(table())).isEqualTo(rows);

    // without a time floor, only the minimum is kept
    compactor(new CompactionSettings("compactor", 2, 3, Duration.ZERO, Duration.ofDays(1)))
        .maintain(table());
    assertThat(table().snapshotManager().earliestSnapshotId()).isEqualTo(5L);
  }

  /**
   * A sink adds a column and commits rows holding it while a round runs (seen in e2e
   * SchemaChangeTest under load: the new column's values of one bucket's rows turned NULL).
   */
  @Test
  void aColumnAddedWhileARoundRunsKeepsItsValues() throws Exception {
    ingest(0, 4);
    Runnable alterAndWrite =
        () -> {
          try (Catalog own = TestTables.localCatalog(dir.resolve("warehouse"));
              WriterPool pool =
                  new WriterPool(
                      own,
                      new WriterSettings(
                          "sink-9", dir.resolve("spill-9"), 4 << 20, Duration.ZERO))) {
            own.alterTable(orders, SchemaChange.addColumn("note", DataTypes.STRING()), false);
            TableWriter writer = pool.writer(orders);
            for (int id = 0; id < 4; id++) {
              writer.write(update(id, "v3", (long) id, "note " + id));
            }
            writer.commit(Map.of(new SourcePartition("orders", 9), 1L));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    Compactor racing =
        new Compactor(
            CompactionSettings.defaults("compactor"),
            dir.resolve("compactor-spill"),
            System::currentTimeMillis,
            alterAndWrite);

    racing.compact(table(), true);
    Compactor next = compactor(CompactionSettings.defaults("compactor"));
    next.compact(table(), true);

    assertThat(LakeRows.read(table()))
        .containsExactlyInAnyOrder(
            LakeRows.values(0, "v3", 0L, "note 0"),
            LakeRows.values(1, "v3", 1L, "note 1"),
            LakeRows.values(2, "v3", 2L, "note 2"),
            LakeRows.values(3, "v3", 3L, "note 3"));
    assertThat(dataFiles(table())).as("the next round compacted").isEqualTo(2);
  }

  @Test
  void defaultsKeepRecentSnapshots() throws Exception {
    ingest(0, 4);
    MaintenanceResult result =
        compactor(CompactionSettings.defaults("compactor")).maintain(table());
    assertThat(result.snapshotsExpired()).isZero();
    assertThat(table().snapshotManager().earliestSnapshotId()).isEqualTo(1L);
  }

  private static long snapshots(FileStoreTable table, Snapshot.CommitKind kind) {
    long count = 0;
    for (long id = table.snapshotManager().earliestSnapshotId();
        id <= table.snapshotManager().latestSnapshotId();
        id++) {
      if (table.snapshotManager().snapshot(id).commitKind() == kind) {
        count++;
      }
    }
    return count;
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

  private static long dataFiles(FileStoreTable table) {
    long files = 0;
    for (Split split : table.newReadBuilder().newScan().plan().splits()) {
      files += ((DataSplit) split).dataFiles().size();
    }
    return files;
  }
}
