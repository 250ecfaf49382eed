package io.changelake.lsm.changelog;

import static io.changelake.lsm.testing.LakeRows.delete;
import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.row;
import static io.changelake.lsm.testing.LakeRows.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.lsm.fault.Failure;
import io.changelake.lsm.fault.Failures;
import io.changelake.lsm.fault.LakeDataException;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangelogReaderTest {
  private static final SourcePartition P0 = new SourcePartition("t", 0);

  @TempDir Path dir;
  private Catalog catalog;
  private WriterPool pool;
  private long offset;

  @BeforeEach
  void setUp() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
    pool =
        new WriterPool(
            catalog, new WriterSettings("sink-0", dir.resolve("spill"), 8 << 20, Duration.ZERO));
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.close();
    catalog.close();
  }

  private FileStoreTable create(String name, int buckets, ChangelogProducer producer) {
    return LakeTables.createOrOpen(
        catalog, TestTables.spec("cdc", name, buckets, producer, Map.of()));
  }

  private void commit(String table, GenericRow... rows) {
    TableWriter writer = pool.writer(Identifier.create("cdc", table));
    for (GenericRow row : rows) {
      writer.write(row);
    }
    offset += rows.length;
    writer.commit(Map.of(P0, offset));
  }

  private FileStoreTable table(String name) {
    return LakeTables.open(catalog, Identifier.create("cdc", name));
  }

  private static ChangelogReader reader(
      FileStoreTable table, StartPosition start, Optional<ReaderPosition> restored, int batch) {
    return new ChangelogReader(table, "source-" + table.name(), Set.of(), start, restored, batch);
  }

  /** Every change of every batch until the reader has nothing more, as text. */
  private static List<String> drain(ChangelogReader reader) {
    List<String> changes = new ArrayList<>();
    for (Optional<ChangeBatch> batch = reader.poll(); batch.isPresent(); batch = reader.poll()) {
      for (ChangeRow change : batch.get().changes()) {
        changes.add(describe(change, batch.get()));
      }
    }
    return changes;
  }

  private static String describe(ChangeRow change, ChangeBatch batch) {
    return change.kind().shortString()
        + " "
        + (change.before() == null ? "-" : LakeRows.toJava(change.before(), batch.rowType()))
        + " -> "
        + (change.after() == null ? "-" : LakeRows.toJava(change.after(), batch.rowType()));
  }

  @Test
  void aTruncateIsReadInOrderWithTheChangesBeforeAndAfterIt() {
    FileStoreTable table = create("truncated", 1, ChangelogProducer.INPUT);
    commit("truncated", insert(1, "a", 10L));
    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 100)) {
      assertThat(drain(reader)).containsExactly("+I - -> [1, a, 10]");

      offset++;
      pool.writer(Identifier.create("cdc", "truncated")).truncate(Map.of(P0, offset));
      commit("truncated", insert(2, "b", 20L));

      // overwrite snapshots carry no changelog: the reader announces the truncate itself
      ChangeBatch truncate = reader.poll().orElseThrow();
      assertThat(truncate.snapshotId()).isEqualTo(2);
      assertThat(truncate.truncates()).isTrue();
      assertThat(truncate.changes()).as("no row survives the sink's truncate").isEmpty();
      assertThat(truncate.truncatePosition()).isEqualTo(new ReaderPosition(3, 0, false));
      assertThat(truncate.endOfSnapshot()).isTrue();
      assertThat(drain(reader)).containsExactly("+I - -> [2, b, 20]");
    }
    assertThat(LakeRows.read(table(table.name()))).containsExactly(List.of(2, "b", 20L));
  }

  @Test
  void anOverwriteIsATruncateFollowedByTheRowsItWroteAsAFullState() throws Exception {
    FileStoreTable table = create("overwritten", 2, ChangelogProducer.INPUT);
    commit("overwritten", insert(1, "a", 10L), insert(2, "b", 20L));
    // another engine's INSERT OVERWRITE: a plain overwrite snapshot holding new rows
    BatchWriteBuilder overwrite = table(table.name()).newBatchWriteBuilder().withOverwrite();
    try (BatchTableWrite write = overwrite.newWrite();
        BatchTableCommit commit = overwrite.newCommit()) {
      write.write(insert(3, "c", 30L));
      write.write(insert(4, "d", 40L));
      commit.commit(write.prepareCommit());
    }
    commit("overwritten", insert(5, "e", 50L));

    ReaderPosition afterTruncate;
    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 1)) {
      List<String> first = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        ChangeBatch batch = reader.poll().orElseThrow();
        batch.changes().forEach(change -> first.add(describe(change, batch)));
      }
      assertThat(first).containsExactlyInAnyOrder("+I - -> [1, a, 10]", "+I - -> [2, b, 20]");

      ChangeBatch truncate = reader.poll().orElseThrow();
      assertThat(truncate.snapshotId()).isEqualTo(2);
      assertThat(truncate.commitKind()).isEqualTo("OVERWRITE");
      assertThat(truncate.truncates()).isTrue();
      assertThat(truncate.fullState()).isTrue();
      assertThat(truncate.truncatePosition()).isEqualTo(new ReaderPosition(2, 0, true));
      assertThat(truncate.changes()).hasSize(1);
      afterTruncate = truncate.changes().get(0).position();
      assertThat(afterTruncate).isEqualTo(new ReaderPosition(2, 1, true));
      List<String> rest = new ArrayList<>();
      rest.add(describe(truncate.changes().get(0), truncate));
      ChangeBatch second = reader.poll().orElseThrow();
      assertThat(second.truncates()).isFalse();
      assertThat(second.fullState()).isTrue();
      assertThat(second.endOfSnapshot()).isTrue();
      rest.add(describe(second.changes().get(0), second));
      assertThat(rest).containsExactlyInAnyOrder("+I - -> [3, c, 30]", "+I - -> [4, d, 40]");
      assertThat(drain(reader)).containsExactly("+I - -> [5, e, 50]");
    }

    // resumed inside the rows after the truncate: the rest of them, no second truncate
    try (ChangelogReader resumed =
        reader(table, new StartPosition.Latest(), Optional.of(afterTruncate), 100)) {
      ChangeBatch batch = resumed.poll().orElseThrow();
      assertThat(batch.truncates()).isFalse();
      assertThat(batch.fullState()).isTrue();
      assertThat(batch.changes()).hasSize(1);
      assertThat(drain(resumed)).containsExactly("+I - -> [5, e, 50]");
    }
    // resumed just before the truncate: it again
    try (ChangelogReader resumed =
        new ChangelogReader(
            table,
            "before-truncate",
            Set.of(),
            new StartPosition.Latest(),
            Optional.of(new ReaderPosition(2, 0, false)),
            100)) {
      ChangeBatch batch = resumed.poll().orElseThrow();
      assertThat(batch.truncates()).isTrue();
      assertThat(batch.changes()).hasSize(2);
    }
  }

  @Test
  void ofReadersSplittingATableOnlyTheOneOwningBucketZeroAnnouncesATruncate() {
    FileStoreTable table = create("split", 2, ChangelogProducer.INPUT);
    commit("split", insert(1, "a", 1L), insert(2, "b", 2L), insert(3, "c", 3L));
    offset++;
    pool.writer(Identifier.create("cdc", "split")).truncate(Map.of(P0, offset));
    commit("split", insert(4, "d", 4L));
    for (int bucket = 0; bucket < 2; bucket++) {
      try (ChangelogReader reader =
          new ChangelogReader(
              table,
              "bucket-" + bucket,
              Set.of(bucket),
              new StartPosition.FromSnapshot(1),
              Optional.empty(),
              100)) {
        List<Boolean> truncates = new ArrayList<>();
        for (Optional<ChangeBatch> batch = reader.poll();
            batch.isPresent();
            batch = reader.poll()) {
          truncates.add(batch.get().truncates());
        }
        if (bucket == 0) {
          assertThat(truncates).containsOnlyOnce(true);
        } else {
          assertThat(truncates).doesNotContain(true);
        }
      }
    }
  }

  /** Reads batches until {@code limit} changes, noting each bucket's latest position. */
  private static List<String> readSome(
      ChangelogReader reader, int limit, Map<Integer, ReaderPosition> positions) {
    List<String> changes = new ArrayList<>();
    while (changes.size() < limit) {
      Optional<ChangeBatch> batch = reader.poll();
      if (batch.isEmpty()) {
        break;
      }
      for (ChangeRow change : batch.get().changes()) {
        changes.add(describe(change, batch.get()));
        positions.put(change.bucket(), change.position());
      }
    }
    return changes;
  }

  private static Map<Integer, ReaderPosition> only(
      Map<Integer, ReaderPosition> positions, Set<Integer> buckets) {
    Map<Integer, ReaderPosition> subset = new HashMap<>(positions);
    subset.keySet().retainAll(buckets);
    return subset;
  }

  @Test
  void perBucketPositionsLetOtherBucketSetsResumeWithoutALostOrRepeatedChange() {
    FileStoreTable table = create("resplit", 4, ChangelogProducer.INPUT);
    List<String> expected = new ArrayList<>();
    List<GenericRow> rows = new ArrayList<>();
    for (int id = 0; id < 40; id++) {
      rows.add(insert(id, "r" + id, (long) id));
      expected.add("+I - -> [" + id + ", r" + id + ", " + id + "]");
    }
    commit("resplit", rows.toArray(GenericRow[]::new));
    Set<Integer> all = Set.of(0, 1, 2, 3);
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    // before anything is read every bucket stands at the start of the full state
    all.forEach(bucket -> positions.put(bucket, new ReaderPosition(1, 0, true)));
    List<String> published = new ArrayList<>();
    try (ChangelogReader whole =
        new ChangelogReader(table, "src", all, new StartPosition.FullThenChanges(), Map.of(), 7)) {
      // stops in the middle of the full state, as a task does when tasks.max changes
      published.addAll(readSome(whole, 21, positions));
    }
    for (int round = 1; round <= 2; round++) {
      List<GenericRow> updates = new ArrayList<>();
      for (int id = round; id < 40; id += 4) {
        updates.add(update(id, "u" + round, (long) id * 100 + round));
        expected.add("+U - -> [" + id + ", u" + round + ", " + (id * 100 + round) + "]");
      }
      commit("resplit", updates.toArray(GenericRow[]::new));
    }

    assertThat(positions.values()).anyMatch(ReaderPosition::fullState);

    // two readers take over half of the buckets each, resuming from the positions per bucket
    try (ChangelogReader low =
            new ChangelogReader(
                table("resplit"),
                "src",
                Set.of(0, 1),
                new StartPosition.Latest(),
                only(positions, Set.of(0, 1)),
                5);
        ChangelogReader high =
            new ChangelogReader(
                table("resplit"),
                "src",
                Set.of(2, 3),
                new StartPosition.Latest(),
                only(positions, Set.of(2, 3)),
                5)) {
      published.addAll(readSome(low, Integer.MAX_VALUE, positions));
      published.addAll(readSome(high, Integer.MAX_VALUE, positions));
    }
    assertThat(published).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
    assertThat(positions.values()).noneMatch(ReaderPosition::fullState);

    // and one reader takes all four over again: only the newer changes follow
    List<String> later = new ArrayList<>();
    for (int id = 0; id < 40; id += 8) {
      later.add("+U - -> [" + id + ", u3, " + (id * 100 + 3) + "]");
    }
    commit(
        "resplit",
        later.stream()
            .map(text -> Integer.valueOf(text.substring(text.indexOf('[') + 1, text.indexOf(','))))
            .map(id -> update(id, "u3", (long) id * 100 + 3))
            .toArray(GenericRow[]::new));
    try (ChangelogReader whole =
        new ChangelogReader(
            table("resplit"), "src", all, new StartPosition.Latest(), positions, 3)) {
      assertThat(drain(whole)).containsExactlyInAnyOrderElementsOf(later);
    }
  }

  @Test
  void changesOfALaterSnapshotKeepTheirBucketSoAReaderResumesInsideThatSnapshot() {
    // positions are counted per bucket also inside a snapshot of changes (here delta files, no
    // changelog producer): a change counted under another bucket key would be repeated or lost
    FileStoreTable table = create("inside", 4, ChangelogProducer.NONE);
    List<GenericRow> rows = new ArrayList<>();
    for (int id = 0; id < 24; id++) {
      rows.add(insert(id, "r" + id, (long) id));
    }
    commit("inside", rows.toArray(GenericRow[]::new));
    Set<Integer> all = Set.of(0, 1, 2, 3);
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    List<String> expected = new ArrayList<>();
    List<String> published = new ArrayList<>();
    try (ChangelogReader first =
        new ChangelogReader(table, "inside", all, new StartPosition.Latest(), Map.of(), 4)) {
      assertThat(first.poll()).isEmpty();
      ReaderPosition start = first.position();
      all.forEach(bucket -> positions.put(bucket, start));
      List<GenericRow> updates = new ArrayList<>();
      for (int id = 0; id < 24; id++) {
        updates.add(update(id, "u", (long) id * 10));
        expected.add("+U - -> [" + id + ", u, " + id * 10 + "]");
      }
      commit("inside", updates.toArray(GenericRow[]::new));
      // stops inside the snapshot of updates
      published.addAll(readSome(first, 9, positions));
    }
    assertThat(positions.keySet()).as("the buckets the changes were counted in").isEqualTo(all);

    try (ChangelogReader resumed =
        new ChangelogReader(
            table("inside"), "inside", all, new StartPosition.Latest(), positions, 4)) {
      published.addAll(readSome(resumed, Integer.MAX_VALUE, positions));
    }
    assertThat(published).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void positionsMixingAFullStateWithChangesOfTheSameSnapshotAreRefused() {
    FileStoreTable table = create("mixed", 2, ChangelogProducer.INPUT);
    commit("mixed", insert(1, "a", 1L), insert(2, "b", 2L));
    assertThatThrownBy(
            () ->
                new ChangelogReader(
                    table,
                    "src",
                    Set.of(0, 1),
                    new StartPosition.Latest(),
                    Map.of(0, new ReaderPosition(1, 0, true), 1, new ReaderPosition(1, 1, false)),
                    10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("separate readers");
  }

  @Test
  void aTruncateIsAnnouncedOnceAlsoWhenItsBucketMovesToAnotherReader() {
    FileStoreTable table = create("moved", 2, ChangelogProducer.INPUT);
    commit("moved", insert(1, "a", 1L), insert(2, "b", 2L), insert(3, "c", 3L));
    offset++;
    pool.writer(Identifier.create("cdc", "moved")).truncate(Map.of(P0, offset));
    commit("moved", insert(4, "d", 4L), insert(5, "e", 5L));
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    ReaderPosition truncatedAt;
    // bucket 0's reader publishes the truncate, then stops
    try (ChangelogReader zero =
        new ChangelogReader(
            table, "zero", Set.of(0), new StartPosition.FromSnapshot(1), Map.of(), 100)) {
      ChangeBatch batch = zero.poll().orElseThrow();
      while (!batch.truncates()) {
        batch = zero.poll().orElseThrow();
      }
      truncatedAt = batch.truncatePosition();
      assertThat(batch.snapshotId()).isEqualTo(2);
      positions.put(0, truncatedAt);
    }
    // what each bucket has left: bucket 0 after its truncate, bucket 1 from the start
    List<String> expected = new ArrayList<>();
    try (ChangelogReader rest =
        new ChangelogReader(
            table("moved"),
            "rest0",
            Set.of(0),
            new StartPosition.Latest(),
            Map.of(0, truncatedAt),
            100)) {
      expected.addAll(drain(rest));
    }
    try (ChangelogReader one =
        new ChangelogReader(
            table("moved"), "rest1", Set.of(1), new StartPosition.FromSnapshot(1), Map.of(), 100)) {
      expected.addAll(drain(one));
    }
    assertThat(expected).isNotEmpty();
    // bucket 1 stood before the truncate: one reader of both buckets goes on from there
    positions.put(1, ReaderPosition.snapshotStart(1));
    List<Boolean> truncates = new ArrayList<>();
    List<String> published = new ArrayList<>();
    try (ChangelogReader both =
        new ChangelogReader(
            table("moved"), "both", Set.of(0, 1), new StartPosition.Latest(), positions, 100)) {
      for (Optional<ChangeBatch> batch = both.poll(); batch.isPresent(); batch = both.poll()) {
        truncates.add(batch.get().truncates());
        for (ChangeRow change : batch.get().changes()) {
          published.add(describe(change, batch.get()));
        }
      }
    }
    assertThat(truncates).as("bucket 0 published the truncate already").doesNotContain(true);
    assertThat(published).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void aTruncateWaitsUntilItsBarrierLetsItGo() {
    FileStoreTable table = create("barrier", 2, ChangelogProducer.INPUT);
    commit("barrier", insert(1, "a", 1L), insert(2, "b", 2L), insert(3, "c", 3L));
    offset++;
    pool.writer(Identifier.create("cdc", "barrier")).truncate(Map.of(P0, offset));
    commit("barrier", insert(4, "d", 4L));
    boolean[] open = {false};
    TruncateBarrier barrier =
        new TruncateBarrier() {
          @Override
          public boolean mayAnnounce(long snapshotId) {
            return open[0];
          }

          @Override
          public boolean mayFollow(long snapshotId) {
            return open[0];
          }
        };
    for (int bucket = 0; bucket < 2; bucket++) {
      open[0] = false;
      try (ChangelogReader reader =
          new ChangelogReader(
              table,
              "b" + bucket,
              Set.of(bucket),
              new StartPosition.FromSnapshot(1),
              Map.of(),
              100)) {
        reader.truncateBarrier(barrier);
        List<Long> snapshots = new ArrayList<>();
        for (Optional<ChangeBatch> batch = reader.poll();
            batch.isPresent();
            batch = reader.poll()) {
          snapshots.add(batch.get().snapshotId());
        }
        // held at the truncate: nothing of snapshot 2 or later, also when polled again
        assertThat(snapshots).allMatch(id -> id < 2);
        assertThat(reader.poll()).isEmpty();
        assertThat(reader.position()).isEqualTo(ReaderPosition.snapshotStart(2));
        open[0] = true;
        List<Boolean> truncates = new ArrayList<>();
        for (Optional<ChangeBatch> batch = reader.poll();
            batch.isPresent();
            batch = reader.poll()) {
          snapshots.add(batch.get().snapshotId());
          truncates.add(batch.get().truncates());
        }
        // past the truncate now; only bucket 0's reader announces it
        assertThat(reader.position().snapshotId()).isGreaterThan(2);
        if (bucket == 0) {
          assertThat(truncates).containsOnlyOnce(true);
        } else {
          assertThat(truncates).doesNotContain(true);
        }
      }
    }
  }

  @Test
  void inputChangelogYieldsInsertsPairedUpdatesAndDeletesSnapshotBySnapshot() {
    FileStoreTable table = create("orders", 1, ChangelogProducer.INPUT);
    commit("orders", insert(1, "a", 10L), insert(2, "b", 20L));
    commit(
        "orders",
        row(RowKind.UPDATE_BEFORE, 1, "a", 10L),
        update(1, "a2", 11L),
        delete(2, "b", 20L),
        row(RowKind.UPDATE_BEFORE, 3, "lone", 0L));

    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 100)) {
      ChangeBatch first = reader.poll().orElseThrow();
      assertThat(first.snapshotId()).isEqualTo(1);
      assertThat(first.commitKind()).isEqualTo("APPEND");
      assertThat(first.endOfSnapshot()).isTrue();
      assertThat(first.changes())
          .extracting(change -> describe(change, first))
          .containsExactly("+I - -> [1, a, 10]", "+I - -> [2, b, 20]");
      assertThat(first.changes().get(1).position()).isEqualTo(new ReaderPosition(2, 0, false));

      ChangeBatch second = reader.poll().orElseThrow();
      assertThat(second.snapshotId()).isEqualTo(2);
      assertThat(second.changes())
          .extracting(change -> describe(change, second))
          .containsExactly(
              "+U [1, a, 10] -> [1, a2, 11]", "-D [2, b, 20] -> -", "-U [3, lone, 0] -> -");
      assertThat(reader.poll()).isEmpty();

      commit("orders", insert(4, "d", 40L));
      assertThat(drain(reader)).containsExactly("+I - -> [4, d, 40]");
    }
  }

  @Test
  void lookupChangelogCarriesBeforeImagesOnceTheCompactorRan() {
    FileStoreTable table = create("customers", 2, ChangelogProducer.LOOKUP);
    Compactor compactor =
        new Compactor(CompactionSettings.defaults("compactor"), dir.resolve("compactor-spill"));
    commit("customers", insert(1, "ann", 1L), insert(2, "bob", 2L));
    compactor.compact(table(table.name()), false);
    // the sink writes only after images (upserts); lookup finds the before image
    commit("customers", update(1, "ann-2", 5L), delete(2, null, null));
    compactor.compact(table(table.name()), false);

    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 100)) {
      assertThat(drain(reader))
          .containsExactlyInAnyOrder(
              "+I - -> [1, ann, 1]",
              "+I - -> [2, bob, 2]",
              "+U [1, ann, 1] -> [1, ann-2, 5]",
              "-D [2, bob, 2] -> -");
    }
  }

  @Test
  void fullCompactionChangelogCarriesBeforeImagesOnceTheCompactorRan() {
    FileStoreTable table = create("accounts", 2, ChangelogProducer.FULL_COMPACTION);
    Compactor compactor =
        new Compactor(CompactionSettings.defaults("compactor"), dir.resolve("compactor-spill"));
    commit("accounts", insert(1, "ann", 1L), insert(2, "bob", 2L), insert(3, "cy", 3L));
    // asked for a normal round: a full-compaction table is compacted fully anyway, since only a
    // full compaction produces its changelog
    compactor.compact(table(table.name()), false);
    commit("accounts", update(1, "ann-2", 5L), delete(2, null, null), update(1, "ann-3", 6L));
    commit("accounts", insert(4, "dee", 4L));
    compactor.compact(table(table.name()), false);

    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 100)) {
      // changes between two full compactions are merged: ann-2 never reaches the changelog
      assertThat(drain(reader))
          .containsExactlyInAnyOrder(
              "+I - -> [1, ann, 1]",
              "+I - -> [2, bob, 2]",
              "+I - -> [3, cy, 3]",
              "+U [1, ann, 1] -> [1, ann-3, 6]",
              "-D [2, bob, 2] -> -",
              "+I - -> [4, dee, 4]");
    }
  }

  @Test
  void fullStateComesFirstThenTheChangesAfterIt() {
    FileStoreTable table = create("items", 2, ChangelogProducer.INPUT);
    commit("items", insert(1, "a", 1L), insert(2, "b", 2L));
    commit("items", update(2, "b2", 3L), insert(3, "c", 4L));

    try (ChangelogReader reader =
        reader(table, new StartPosition.FullThenChanges(), Optional.empty(), 100)) {
      ChangeBatch full = reader.poll().orElseThrow();
      assertThat(full.changes())
          .allMatch(
              change ->
                  change.position().fullState()
                      || change.position().equals(new ReaderPosition(3, 0, false)));
      List<String> all = new ArrayList<>();
      full.changes().forEach(change -> all.add(describe(change, full)));
      all.addAll(drain(reader));
      assertThat(all)
          .containsExactlyInAnyOrder(
              "+I - -> [1, a, 1]", "+I - -> [2, b2, 3]", "+I - -> [3, c, 4]");

      commit("items", delete(1, null, null));
      assertThat(drain(reader)).containsExactly("-D [1, null, null] -> -");
    }
  }

  @Test
  void latestSkipsWhatWasCommittedBeforeTheReaderStarted() {
    FileStoreTable table = create("latest", 1, ChangelogProducer.INPUT);
    commit("latest", insert(1, "old", 1L));
    try (ChangelogReader reader =
        reader(table, new StartPosition.Latest(), Optional.empty(), 100)) {
      assertThat(reader.poll()).isEmpty();
      commit("latest", insert(2, "new", 2L));
      assertThat(drain(reader)).containsExactly("+I - -> [2, new, 2]");
    }
  }

  @Test
  void aTimestampStartsAtTheFirstSnapshotCommittedAtOrAfterIt() throws Exception {
    FileStoreTable table = create("timed", 1, ChangelogProducer.INPUT);
    commit("timed", insert(1, "before", 1L));
    long between = table(table.name()).snapshotManager().latestSnapshot().timeMillis() + 1;
    Thread.sleep(5); // the next snapshot must carry a later commit time than `between`
    commit("timed", insert(2, "after", 2L));
    try (ChangelogReader reader =
        reader(table, new StartPosition.FromTimestamp(between), Optional.empty(), 100)) {
      assertThat(drain(reader)).containsExactly("+I - -> [2, after, 2]");
    }
  }

  @Test
  void aRestoredReaderGoesOnExactlyAfterTheCheckpointedChange() {
    FileStoreTable table = create("resume", 1, ChangelogProducer.INPUT);
    commit(
        "resume",
        insert(1, "a", 1L),
        insert(2, "b", 2L),
        insert(3, "c", 3L),
        insert(4, "d", 4L),
        insert(5, "e", 5L));
    commit("resume", insert(6, "f", 6L));

    ReaderPosition checkpoint;
    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 2)) {
      ChangeBatch batch = reader.poll().orElseThrow();
      assertThat(batch.changes()).hasSize(2);
      assertThat(batch.endOfSnapshot()).isFalse();
      checkpoint = batch.changes().get(1).position();
      assertThat(checkpoint).isEqualTo(new ReaderPosition(1, 2, false));
      reader.checkpoint(checkpoint);
      reader.poll(); // read on, but crash before checkpointing it
    }

    try (ChangelogReader restored =
        reader(table, new StartPosition.Latest(), Optional.of(checkpoint), 2)) {
      assertThat(drain(restored))
          .containsExactly(
              "+I - -> [3, c, 3]", "+I - -> [4, d, 4]", "+I - -> [5, e, 5]", "+I - -> [6, f, 6]");
    }
  }

  @Test
  void aRestoredReaderResumesInsideTheFullState() {
    FileStoreTable table = create("fullresume", 1, ChangelogProducer.INPUT);
    commit("fullresume", insert(1, "a", 1L), insert(2, "b", 2L), insert(3, "c", 3L));
    List<String> seen = new ArrayList<>();
    ReaderPosition checkpoint;
    try (ChangelogReader reader =
        reader(table, new StartPosition.FullThenChanges(), Optional.empty(), 1)) {
      ChangeBatch batch = reader.poll().orElseThrow();
      seen.add(describe(batch.changes().get(0), batch));
      checkpoint = batch.changes().get(0).position();
      assertThat(checkpoint).isEqualTo(new ReaderPosition(1, 1, true));
    }
    commit("fullresume", insert(4, "d", 4L));
    try (ChangelogReader restored =
        reader(table, new StartPosition.Latest(), Optional.of(checkpoint), 10)) {
      seen.addAll(drain(restored));
    }
    assertThat(seen)
        .containsExactlyInAnyOrder(
            "+I - -> [1, a, 1]", "+I - -> [2, b, 2]", "+I - -> [3, c, 3]", "+I - -> [4, d, 4]");
  }

  @Test
  void readersOfDisjointBucketSetsTogetherSeeEveryChangeOnce() {
    FileStoreTable table = create("split", 4, ChangelogProducer.INPUT);
    List<GenericRow> rows = new ArrayList<>();
    for (int id = 0; id < 40; id++) {
      rows.add(insert(id, "r" + id, (long) id));
    }
    commit("split", rows.toArray(GenericRow[]::new));

    List<String> low;
    List<String> high;
    try (ChangelogReader a =
            new ChangelogReader(
                table,
                "src",
                Set.of(0, 1),
                new StartPosition.FullThenChanges(),
                Optional.empty(),
                100);
        ChangelogReader b =
            new ChangelogReader(
                table,
                "src",
                Set.of(2, 3),
                new StartPosition.FullThenChanges(),
                Optional.empty(),
                100)) {
      assertThat(a.consumerId()).isNotEqualTo(b.consumerId());
      low = drain(a);
      high = drain(b);
    }
    assertThat(low).isNotEmpty();
    assertThat(high).isNotEmpty();
    Set<String> union = new HashSet<>(low);
    union.addAll(high);
    assertThat(union).hasSize(40);
    assertThat(low.size() + high.size()).isEqualTo(40);
  }

  @Test
  void consumersAreMatchedByTheirExactIdNotByPrefix() {
    FileStoreTable table = create("hygiene", 2, ChangelogProducer.INPUT);
    commit("hygiene", insert(1, "a", 1L));
    for (String base : List.of("orders", "orders-eu", "orders-buckets-x")) {
      new ChangelogReader(table, base, Set.of(), new StartPosition.Latest(), Optional.empty(), 10)
          .close();
    }
    new ChangelogReader(
            table, "orders", Set.of(1), new StartPosition.Latest(), Optional.empty(), 10)
        .close();

    assertThat(ChangelogReader.consumers(table("hygiene"), "orders"))
        .extracting(RegisteredConsumer::id, RegisteredConsumer::buckets)
        .containsExactlyInAnyOrder(tuple("orders", Set.of()), tuple("orders-buckets-1", Set.of(1)));
    ChangelogReader.dropConsumers(table("hygiene"), "orders");
    assertThat(table("hygiene").consumerManager().listAllIds())
        .containsExactlyInAnyOrder("orders-eu", "orders-buckets-x");
  }

  @Test
  void anAbandonedConsumerStopsPinningSnapshotsAfterTheConsumerExpirationTime() {
    FileStoreTable table =
        LakeTables.createOrOpen(
            catalog,
            TestTables.spec(
                "cdc",
                "abandoned",
                1,
                ChangelogProducer.INPUT,
                Map.of("consumer.expiration-time", "1 ms")));
    commit("abandoned", insert(1, "a", 1L));
    // a reader that registers its consumer at snapshot 1 and is never heard of again
    new ChangelogReader(
            table, "gone", Set.of(), new StartPosition.FromSnapshot(1), Optional.empty(), 10)
        .close();
    assertThat(table("abandoned").consumerManager().listAllIds()).containsExactly("gone");
    for (int i = 2; i <= 6; i++) {
      commit("abandoned", insert(i, "x", (long) i));
    }
    new Compactor(
            new CompactionSettings("compactor", 1, 1, Duration.ZERO, Duration.ofDays(1)),
            dir.resolve("c"))
        .maintain(table("abandoned"));

    assertThat(table("abandoned").consumerManager().listAllIds()).isEmpty();
    assertThat(table("abandoned").snapshotManager().earliestSnapshotId()).isGreaterThan(1L);
  }

  @Test
  void theConsumerKeepsNeededSnapshotsFromExpiring() {
    FileStoreTable table = create("kept", 1, ChangelogProducer.INPUT);
    commit("kept", insert(1, "a", 1L));
    Compactor maintenance =
        new Compactor(
            new CompactionSettings("compactor", 1, 1, Duration.ZERO, Duration.ofDays(1)),
            dir.resolve("c"));
    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 100)) {
      ChangeBatch batch = reader.poll().orElseThrow();
      // not checkpointed yet: snapshot 1 is still needed
      for (int i = 2; i <= 6; i++) {
        commit("kept", insert(i, "x", (long) i));
      }
      maintenance.maintain(table("kept"));
      assertThat(table("kept").snapshotManager().earliestSnapshotId()).isEqualTo(1L);

      reader.checkpoint(batch.changes().get(0).position()); // (2, 0): snapshot 2 on is needed
      maintenance.maintain(table("kept"));
      assertThat(table("kept").snapshotManager().earliestSnapshotId()).isEqualTo(2L);
      assertThat(drain(reader)).hasSize(5);
    }
  }

  @Test
  void anExpiredPositionFailsWithAnErrorSayingHowToReset() {
    FileStoreTable table = create("gone", 1, ChangelogProducer.INPUT);
    for (int i = 1; i <= 5; i++) {
      commit("gone", insert(i, "x", (long) i));
    }
    new Compactor(
            new CompactionSettings("compactor", 1, 1, Duration.ZERO, Duration.ofDays(1)),
            dir.resolve("c"))
        .maintain(table("gone"));

    assertThatThrownBy(
            () ->
                reader(
                    table("gone"),
                    new StartPosition.Latest(),
                    Optional.of(new ReaderPosition(2, 0, false)),
                    10))
        .isInstanceOf(PositionExpiredException.class)
        .hasMessageContaining("cdc.gone")
        .hasMessageContaining("expired")
        .hasMessageContaining("reset the source's offsets");
    assertThatThrownBy(
            () -> reader(table("gone"), new StartPosition.FromSnapshot(1), Optional.empty(), 10))
        .isInstanceOf(PositionExpiredException.class);
  }

  @Test
  void aReaderThatFellBehindWhileRunningFailsInsteadOfWaitingForever() {
    FileStoreTable table = create("behind", 1, ChangelogProducer.INPUT);
    commit("behind", insert(1, "x", 1L));
    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 10)) {
      reader.poll().orElseThrow();
      // someone removed the reader's consumer (or it expired) and snapshots went away
      ChangelogReader.dropConsumers(table("behind"), "source-behind");
      for (int i = 2; i <= 5; i++) {
        commit("behind", insert(i, "x", (long) i));
      }
      ChangelogReader.dropConsumers(table("behind"), "source-behind");
      new Compactor(
              new CompactionSettings("compactor", 1, 1, Duration.ZERO, Duration.ofDays(1)),
              dir.resolve("c"))
          .maintain(table("behind"));

      assertThatThrownBy(() -> drain(reader))
          .isInstanceOf(PositionExpiredException.class)
          .hasMessageContaining("cdc.behind");
    }
  }

  @Test
  void aPositionAheadOfTheTableIsReportedAsARecreatedTable() {
    FileStoreTable table = create("recreated", 1, ChangelogProducer.INPUT);
    commit("recreated", insert(1, "x", 1L));
    assertThatThrownBy(
            () ->
                reader(
                    table,
                    new StartPosition.Latest(),
                    Optional.of(new ReaderPosition(40, 0, false)),
                    10))
        .isInstanceOf(PositionExpiredException.class)
        .hasMessageContaining("recreated");
  }

  @Test
  void aReaderWhoseBucketsSeeNoChangesDoesNotHoldBackExpiry() {
    FileStoreTable table = create("idle", 2, ChangelogProducer.INPUT);
    commit("idle", insert(2, "x", 0L));
    int busy =
        ((DataSplit) table("idle").newReadBuilder().newScan().plan().splits().get(0)).bucket();
    try (ChangelogReader reader =
        new ChangelogReader(
            table,
            "src",
            Set.of(1 - busy),
            new StartPosition.FullThenChanges(),
            Optional.empty(),
            10)) {
      for (int round = 1; round <= 3; round++) {
        commit("idle", insert(2, "x", (long) round));
      }
      assertThat(drain(reader)).isEmpty();
      assertThat(reader.position()).isEqualTo(new ReaderPosition(5, 0, false));

      new Compactor(
              new CompactionSettings("compactor", 1, 1, Duration.ZERO, Duration.ofDays(1)),
              dir.resolve("c"))
          .maintain(table("idle"));

      assertThat(table("idle").snapshotManager().earliestSnapshotId()).isEqualTo(4L);
    }
  }

  @Test
  void aSnapshotWhoseFilesWereDeletedFailsAsBrokenDataNamingTheTableAndTheMissingFile()
      throws Exception {
    FileStoreTable table = create("deleted", 1, ChangelogProducer.INPUT);
    commit("deleted", insert(1, "a", 1L), insert(2, "b", 2L));
    // what an over-eager cleanup outside the connector does
    try (Stream<Path> files = Files.list(dir.resolve("warehouse/cdc.db/deleted/bucket-0"))) {
      for (Path file : files.toList()) {
        Files.delete(file);
      }
    }

    try (ChangelogReader reader =
        reader(table, new StartPosition.FromSnapshot(1), Optional.empty(), 10)) {
      assertThatThrownBy(reader::poll)
          .isInstanceOfSatisfying(
              LakeDataException.class,
              e -> {
                assertThat(e.table()).isEqualTo("cdc.deleted");
                assertThat(e.retriable()).isFalse();
                assertThat(Failures.classify(e))
                    .isInstanceOf(Failure.Terminal.class)
                    .extracting(Failure::reason)
                    .asString()
                    .contains("a file of the table is missing or cut short");
              })
          .hasMessageContaining("Reading snapshot 1 of table cdc.deleted failed");
    }
  }
}
