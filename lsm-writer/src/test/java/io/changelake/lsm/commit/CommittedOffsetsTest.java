package io.changelake.lsm.commit;

import static io.changelake.lsm.testing.LakeRows.insert;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommittedOffsetsTest {
  private static final SourcePartition P0 = new SourcePartition("cdc.public.orders", 0);
  private static final SourcePartition P1 = new SourcePartition("cdc.public.orders", 1);
  private static final SourcePartition OTHER = new SourcePartition("cdc.public.items", 0);

  @TempDir Path dir;
  private Catalog catalog;
  private final Identifier orders = Identifier.create("shop", "orders");
  private WriterPool task0;
  private WriterPool task1;
  private int nextId;

  @BeforeEach
  void setUp() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
    LakeTables.createOrOpen(catalog, TestTables.spec("shop", "orders", 2));
    task0 = pool("orders-sink-0");
    task1 = pool("orders-sink-1");
  }

  @AfterEach
  void tearDown() throws Exception {
    task0.close();
    task1.close();
    catalog.close();
  }

  private WriterPool pool(String user) {
    return new WriterPool(
        catalog, new WriterSettings(user, dir.resolve(user), 4 << 20, Duration.ZERO));
  }

  private void commit(WriterPool pool, Map<SourcePartition, Long> offsets) {
    pool.writer(orders).write(insert(nextId++, "x", 1L));
    pool.writer(orders).commit(offsets);
  }

  private FileStoreTable table() {
    return LakeTables.open(catalog, orders);
  }

  @Test
  void thePartitionOffsetOfTheNewestSnapshotWinsAcrossTasks() {
    commit(task0, Map.of(P0, 10L, P1, 20L));
    // a rebalance moves P1 to task 1, which goes on from offset 20
    commit(task1, Map.of(P1, 35L));
    commit(task0, Map.of(P0, 15L));

    assertThat(CommittedOffsets.read(table(), "orders-sink-")).isEqualTo(Map.of(P0, 15L, P1, 35L));
    assertThat(CommittedOffsets.read(table(), "orders-sink-0"))
        .as("one task alone")
        .isEqualTo(Map.of(P0, 15L, P1, 20L));
    assertThat(CommittedOffsets.read(table(), "another-connector-")).isEmpty();
  }

  @Test
  void topicNamesWithDotsAndManyTopicsRoundTrip() {
    commit(task0, Map.of(P0, 3L, OTHER, 9L));
    assertThat(CommittedOffsets.read(table(), "orders-sink-")).isEqualTo(Map.of(P0, 3L, OTHER, 9L));
    assertThat(OffsetProperties.decode(OffsetProperties.encode(Map.of(OTHER, 9L))))
        .isEqualTo(Map.of(OTHER, 9L));
  }

  @Test
  void offsetsSurviveTheExpiryOfEverySnapshotThatCarriedThem() {
    commit(task0, Map.of(P0, 10L, P1, 20L));
    commit(task1, Map.of(P1, 35L));
    for (int i = 0; i < 5; i++) {
      commit(task0, Map.of(P0, 100L + i));
    }
    // keep only the newest snapshot: task 1's and the early ones are gone
    table()
        .newExpireSnapshots()
        .config(
            ExpireConfig.builder()
                .snapshotRetainMin(1)
                .snapshotRetainMax(1)
                .snapshotTimeRetain(Duration.ZERO)
                .build())
        .expire();
    assertThat(table().snapshotManager().earliestSnapshotId()).isEqualTo(7L);

    assertThat(CommittedOffsets.read(table(), "orders-sink-")).isEqualTo(Map.of(P0, 104L, P1, 35L));
  }

  /** Overwrites snapshot files {@code from..to} with garbage: reading one of them fails. */
  private void corruptSnapshots(long from, long to) throws Exception {
    FileStoreTable table = table();
    for (long id = from; id <= to; id++) {
      table.fileIO().overwriteFileUtf8(table.snapshotManager().snapshotPath(id), "not a snapshot");
    }
  }

  @Test
  void readingTheOffsetsReadsOnlyTheNewestSnapshotsNotEveryRetainedOne() throws Exception {
    for (int i = 1; i <= 20; i++) {
      commit(task0, Map.of(P0, 10L * i));
      commit(task1, Map.of(P1, 100L + i));
    }
    assertThat(table().snapshotManager().latestSnapshotId()).isEqualTo(40L);
    // nothing may need the old snapshots: the copies hold their offsets
    corruptSnapshots(1, 38);

    CommittedOffsets.Reading reading = CommittedOffsets.reading(table(), u -> true);

    assertThat(reading.offsets()).isEqualTo(Map.of(P0, 200L, P1, 120L));
    assertThat(reading.snapshotsRead()).isLessThanOrEqualTo(2);
  }

  @Test
  void aSnapshotWhoseCopyALostCrashNeverWroteIsStillReadUntilTheUsersNextWriterCopiesIt()
      throws Exception {
    commit(task0, Map.of(P0, 10L));
    Path copy =
        dir.resolve("warehouse/shop.db/orders")
            .resolve(OffsetFallbackStore.DIRECTORY)
            .resolve("orders-sink-0.properties");
    String beforeSecondCommit = java.nio.file.Files.readString(copy);
    commit(task0, Map.of(P0, 20L, P1, 5L));
    // the worker died between snapshot 2 and its copy: the copy is as before
    java.nio.file.Files.writeString(copy, beforeSecondCommit);
    for (int i = 1; i <= 30; i++) {
      commit(task1, Map.of(OTHER, (long) i));
    }

    CommittedOffsets.Reading afterCrash = CommittedOffsets.reading(table(), u -> true);
    assertThat(afterCrash.offsets()).isEqualTo(Map.of(P0, 20L, P1, 5L, OTHER, 30L));
    assertThat(afterCrash.snapshotsRead()).as("down to the snapshot the copy lacks").isEqualTo(31);

    // the task starts again (the dead instance is never used again) and opens the table
    try (WriterPool restarted = pool("orders-sink-0")) {
      restarted.writer(orders);
      corruptSnapshots(1, 31);

      CommittedOffsets.Reading afterRestart = CommittedOffsets.reading(table(), u -> true);

      assertThat(afterRestart.offsets()).isEqualTo(Map.of(P0, 20L, P1, 5L, OTHER, 30L));
      assertThat(afterRestart.snapshotsRead()).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void aWriterThatClosedCleanlyIsAnsweredFromItsCopyAlone() throws Exception {
    commit(task0, Map.of(P0, 10L));
    task0.close();
    for (int i = 1; i <= 20; i++) {
      commit(task1, Map.of(P1, (long) i));
    }
    corruptSnapshots(1, 20);

    CommittedOffsets.Reading reading = CommittedOffsets.reading(table(), u -> true);

    assertThat(reading.offsets()).isEqualTo(Map.of(P0, 10L, P1, 20L));
    assertThat(reading.snapshotsRead()).isLessThanOrEqualTo(1);
  }

  @Test
  void marksComeBackWithTheirOffsetsFromSnapshotsAndAfterExpiryFromTheCopy() {
    pool(task0, new SourceProgress(Map.of(P0, 10L, P1, 20L), Map.of(P0, "a|b=c;d@e#f", P1, "p1")));
    // task 1 takes P1 over and commits it without a mark
    pool(task1, SourceProgress.of(Map.of(P1, 35L)));

    assertThat(CommittedOffsets.readPartitions(table(), "orders-sink-"))
        .isEqualTo(
            Map.of(
                P0,
                new CommittedPartition(10L, Optional.of("a|b=c;d@e#f")),
                P1,
                new CommittedPartition(35L, Optional.empty())));

    pool(task0, new SourceProgress(Map.of(P0, 11L), Map.of(P0, "newest")));
    table()
        .newExpireSnapshots()
        .config(
            ExpireConfig.builder()
                .snapshotRetainMin(1)
                .snapshotRetainMax(1)
                .snapshotTimeRetain(Duration.ZERO)
                .build())
        .expire();
    // P1's snapshot is gone: its offset and (missing) mark come from the copy
    assertThat(CommittedOffsets.readPartitions(table(), "orders-sink-"))
        .isEqualTo(
            Map.of(
                P0,
                new CommittedPartition(11L, Optional.of("newest")),
                P1,
                new CommittedPartition(35L, Optional.empty())));
    assertThat(new OffsetFallbackStore(table()).read("orders-sink-0").get(P1).mark())
        .contains("p1");
  }

  private void pool(WriterPool pool, SourceProgress progress) {
    pool.writer(orders).write(insert(nextId++, "x", 1L));
    pool.writer(orders).commit(progress);
  }
}
