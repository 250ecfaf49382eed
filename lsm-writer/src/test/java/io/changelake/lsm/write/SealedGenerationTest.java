package io.changelake.lsm.write;

import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.fault.BrokenWriterException;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table ordered by a {@code sequence.field}: its seal hands the rows buffered so far (one writer
 * generation) to whoever lands the commit, which flushes them into files there, while a second
 * generation takes the rows written meanwhile.
 */
class SealedGenerationTest extends OrdersTableTest {
  private static final SourcePartition P0 = new SourcePartition("db.inventory.ledger", 0);
  private final Identifier ledger = Identifier.create("shop", "ledger");

  @BeforeEach
  void createLedger() {
    PooledTableWriter.useGenerations(true);
    // versions of a key ordered by amount, as the sink orders them by the source position
    LakeTables.createOrOpen(
        catalog,
        TestTables.spec(
            "shop", "ledger", 2, ChangelogProducer.NONE, Map.of("sequence.field", "amount")));
  }

  @AfterEach
  void generationsAsByDefault() {
    PooledTableWriter.useGenerations(PooledTableWriter.GENERATIONS_BY_DEFAULT);
  }

  @Test
  void theSealedRowsAreFlushedWhenTheyLandWhileTheNextGenerationTakesRows() throws Exception {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(ledger);
      for (int id = 1; id <= 5; id++) {
        writer.write(insert(id, "a-" + id, (long) id));
      }
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 5L)));
      try {
        assertThat(dataFiles()).as("the seal wrote no file: the flush is the landing's").isEmpty();
        writer.write(update(2, "b-2", 20L));
        writer.write(insert(6, "a-6", 6L));
      } finally {
        // closing the pool waits for the landing: land even when an assertion failed
        CompletableFuture.supplyAsync(sealed::land).get(60, TimeUnit.SECONDS);
      }

      assertThat(LakeRows.read(ledgerTable())).hasSize(5).contains(values(2, "a-2", 2L));
      assertThat(CommittedOffsets.read(ledgerTable(), "sink-")).isEqualTo(Map.of(P0, 5L));
      // the second generation's rows, written while the first flushed, follow in the next commit
      writer.commit(Map.of(P0, 7L));
      // and a third round goes back to the first generation, reused
      writer.write(update(6, "c-6", 60L));
      writer.seal(SourceProgress.of(Map.of(P0, 8L))).land();
    }
    assertThat(LakeRows.read(ledgerTable()))
        .hasSize(6)
        .contains(values(2, "b-2", 20L), values(6, "c-6", 60L));
    assertThat(CommittedOffsets.read(ledgerTable(), "sink-")).isEqualTo(Map.of(P0, 8L));
  }

  @Test
  void withTheSwitchOffTheSealFlushesOnTheWritersThread() throws Exception {
    // -Dchangelake.writer.flush-off-thread=false, the escape hatch
    PooledTableWriter.useGenerations(false);
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(ledger);
      writer.write(insert(1, "a-1", 1L));
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 1L)));
      assertThat(dataFiles()).as("flushed by the seal itself").isNotEmpty();
      assertThat(LakeRows.read(ledgerTable())).as("not committed before it lands").isEmpty();
      sealed.land();
    }
    assertThat(LakeRows.read(ledgerTable())).containsExactly(values(1, "a-1", 1L));
  }

  @ParameterizedTest(name = "the committer flushes before it lands: {0}")
  @ValueSource(booleans = {false, true})
  void aFlushFailingWhereTheCommitLandsNamesTheTableAndStopsTheWriter(boolean flushFirst)
      throws Exception {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(ledger);
      for (int id = 1; id <= 20; id++) {
        writer.write(insert(id, "a-" + id, (long) id));
      }
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 20L)));
      // the buckets' folders cannot be created any more: the flush's Parquet files fail
      Path tableDir = tableDir();
      Files.writeString(tableDir.resolve("bucket-0"), "not a folder");
      Files.writeString(tableDir.resolve("bucket-1"), "not a folder");

      // a committer under a flush limit flushes first and does not land after a failure
      Runnable committer = flushFirst ? sealed::flush : sealed::land;
      assertThatThrownBy(() -> CompletableFuture.runAsync(committer).join())
          .hasCauseInstanceOf(BrokenWriterException.class)
          .hasMessageContaining("Flushing the rows of commit")
          .hasMessageContaining("shop.ledger");
      // nothing written after the lost rows may be committed past them
      assertThatThrownBy(() -> writer.write(insert(21, "x", 21L)))
          .isInstanceOf(BrokenWriterException.class)
          .hasMessageContaining("shop.ledger");
      // closing the pool waits for the landing: it must learn that the landing failed
    }
    assertThat(LakeRows.read(ledgerTable())).isEmpty();
  }

  @Test
  void aCommitterMayFlushTheSealedRowsFirstAndCommitThemLater() throws Exception {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(ledger);
      writer.write(insert(1, "a-1", 1L));
      writer.write(insert(2, "a-2", 2L));
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 2L)));
      assertThat(sealed.flushNeedsOnlyCpu()).as("rows to flush onto a local disk").isTrue();

      // the committer's flush, under its limit, then its commit
      CompletableFuture.runAsync(sealed::flush).get(60, TimeUnit.SECONDS);
      assertThat(dataFiles()).as("flushed").isNotEmpty();
      assertThat(LakeRows.read(ledgerTable())).as("not committed before it lands").isEmpty();
      assertThat(sealed.flushNeedsOnlyCpu()).as("nothing left to flush").isFalse();
      writer.write(insert(3, "a-3", 3L));
      CompletableFuture.supplyAsync(sealed::land).get(60, TimeUnit.SECONDS);

      assertThat(LakeRows.read(ledgerTable()))
          .containsExactlyInAnyOrder(values(1, "a-1", 1L), values(2, "a-2", 2L));
      writer.commit(Map.of(P0, 3L));
    }
    assertThat(LakeRows.read(ledgerTable())).hasSize(3);
    assertThat(CommittedOffsets.read(ledgerTable(), "sink-")).isEqualTo(Map.of(P0, 3L));
  }

  @Test
  void aLookupOfAKeyTheGenerationInFlightWroteIsAnsweredWithoutWaitingForIt() throws Exception {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(ledger);
      writer.write(insert(1, "x", 0L));
      writer.commit(Map.of(P0, 1L));
      // from the first lookup on the writer tracks the keys it writes
      assertThat(writer.lookup(insert(1, null, null), Map.of(P0, 1L))).isPresent();
      writer.write(update(1, "in-flight", 1L));
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 2L)));

      CompletableFuture<Optional<InternalRow>> lookup =
          CompletableFuture.supplyAsync(() -> writer.lookup(insert(1, null, null), Map.of(P0, 2L)));
      Optional<InternalRow> found;
      try {
        // answered while the sealed generation has not even been flushed
        found = lookup.get(60, TimeUnit.SECONDS);
      } finally {
        sealed.land();
      }
      assertThat(found).isPresent();
      assertThat(LakeRows.toJava(found.get(), TestTables.ID_NAME_AMOUNT))
          .isEqualTo(values(1, "in-flight", 1L));
    }
    assertThat(LakeRows.read(ledgerTable())).containsExactly(values(1, "in-flight", 1L));
  }

  @Test
  void bothGenerationsShareTheWriteBufferAndTheNewOneFlushesEarlyWhenItIsFull() throws Exception {
    String wide = "w".repeat(4096);
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(ledger);
      // about 6 of the pool's 8 MiB
      for (int id = 0; id < 1_500; id++) {
        writer.write(insert(id, wide, (long) id));
      }
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 1_500L)));
      try {
        // twice the budget into the second generation while the first holds its pages: it
        // spills or flushes early instead of waiting for pages the sealed one never gives back
        for (int id = 1_500; id < 5_500; id++) {
          writer.write(insert(id, wide, (long) id));
        }
      } finally {
        // closing the pool waits for the landing
        CompletableFuture.supplyAsync(sealed::land).get(120, TimeUnit.SECONDS);
      }
      writer.commit(Map.of(P0, 5_500L));
    }
    assertThat(LakeRows.read(ledgerTable())).hasSize(5_500);
    assertThat(CommittedOffsets.read(ledgerTable(), "sink-")).isEqualTo(Map.of(P0, 5_500L));
  }

  @Test
  void aTruncateDuringASealedFlushLandsAfterItAndKeepsWhatFollowsItInTheSource() throws Exception {
    // the third column stands for the source position; the truncate is at 100
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(ledger);
      // two rounds first: both generations have written, the truncate's commit reuses one
      writer.write(insert(1, "before, round 1", 10L));
      writer.seal(SourceProgress.of(Map.of(P0, 1L))).land();
      writer.write(insert(2, "before, round 2", 20L));
      writer.write(insert(3, "after, round 2", 150L));
      writer.seal(SourceProgress.of(Map.of(P0, 3L))).land();
      writer.write(insert(4, "before, sealed", 30L));
      writer.write(insert(5, "after, sealed", 160L));
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 5L)));
      // the round lands on its committer thread while the task reads on into the next generation
      CompletableFuture<?> landing = CompletableFuture.supplyAsync(sealed::land);
      writer.write(insert(6, "before, buffered", 40L));
      writer.write(insert(7, "after, buffered", 170L));

      CommitResult truncate =
          writer.truncate(
              SourceProgress.of(Map.of(P0, 7L)),
              SourceProgress.of(Map.of(P0, 8L)),
              row -> row.getLong(2) > 100);
      assertThat(truncate.snapshotId()).as("the truncate's own snapshot").isPresent();
      landing.get(60, TimeUnit.SECONDS);
      assertThat(LakeRows.read(ledgerTable()))
          .containsExactlyInAnyOrder(
              values(3, "after, round 2", 150L),
              values(5, "after, sealed", 160L),
              values(7, "after, buffered", 170L));

      // rows after the truncate, over rounds that alternate the generations again
      writer.write(insert(8, "after the truncate", 200L));
      writer.write(update(3, "updated after the truncate", 210L));
      SealedCommit next = writer.seal(SourceProgress.of(Map.of(P0, 10L)));
      writer.write(insert(9, "written while it lands", 220L));
      CompletableFuture.supplyAsync(next::land).get(60, TimeUnit.SECONDS);
      writer.seal(SourceProgress.of(Map.of(P0, 11L))).land();
    }
    assertThat(LakeRows.read(ledgerTable()))
        .containsExactlyInAnyOrder(
            values(3, "updated after the truncate", 210L),
            values(5, "after, sealed", 160L),
            values(7, "after, buffered", 170L),
            values(8, "after the truncate", 200L),
            values(9, "written while it lands", 220L));
    assertThat(CommittedOffsets.read(ledgerTable(), "sink-")).isEqualTo(Map.of(P0, 11L));
  }

  private FileStoreTable ledgerTable() {
    return LakeTables.open(catalog, ledger);
  }

  private Path tableDir() {
    return Path.of(ledgerTable().location().toUri());
  }

  private List<Path> dataFiles() throws Exception {
    try (Stream<Path> files = Files.walk(tableDir())) {
      return files.filter(f -> f.getFileName().toString().startsWith("data-")).toList();
    }
  }
}
