package io.changelake.lsm.write;

import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.data.InternalRow;
import org.junit.jupiter.api.Test;

/**
 * A commit split in two: sealed on the writer's thread, landed on another while the writer keeps
 * taking rows.
 */
class SealedCommitTest extends OrdersTableTest {
  private static final SourcePartition P0 = new SourcePartition("db.inventory.orders", 0);

  @Test
  void rowsWrittenWhileASealedCommitLandsGoToTheNextCommitAndNoneIsLost() throws Exception {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      for (int id = 1; id <= 5; id++) {
        writer.write(insert(id, "a-" + id, (long) id));
      }
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 5L)));
      // the writer keeps taking rows before the sealed commit has landed
      writer.write(update(2, "b-2", 20L));
      writer.write(insert(6, "a-6", 6L));
      assertThat(LakeRows.read(table())).as("nothing landed yet").isEmpty();

      CommitResult landed = CompletableFuture.supplyAsync(sealed::land).get(60, TimeUnit.SECONDS);

      assertThat(landed.snapshotId()).isPresent();
      assertThat(LakeRows.read(table())).hasSize(5).contains(values(2, "a-2", 2L));
      assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 5L));
      assertThat(writer.hasUncommittedRows()).isTrue();

      writer.commit(Map.of(P0, 7L));
    }
    assertThat(LakeRows.read(table()))
        .hasSize(6)
        .contains(values(2, "b-2", 20L), values(6, "a-6", 6L));
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 7L));
  }

  @Test
  void aLookupOfASealedKeyWaitsForTheLandingAndSeesTheSealedRow() throws Exception {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "x", 0L));
      writer.commit(Map.of(P0, 1L));
      // from the first lookup on the writer tracks the keys it writes
      assertThat(writer.lookup(insert(1, null, null), Map.of(P0, 1L))).isPresent();
      writer.write(update(1, "sealed", 1L));
      SealedCommit sealed = writer.seal(SourceProgress.of(Map.of(P0, 2L)));
      writer.write(insert(2, "after-seal", 2L));

      // a key written after the seal is answered from memory at once
      assertThat(found(writer.lookup(insert(2, null, null), Map.of(P0, 3L))))
          .isEqualTo(values(2, "after-seal", 2L));
      // a sealed key needs the sealed files committed: the lookup waits for the landing
      CountDownLatch looking = new CountDownLatch(1);
      CompletableFuture<Optional<InternalRow>> lookup =
          CompletableFuture.supplyAsync(
              () -> {
                looking.countDown();
                return writer.lookup(insert(1, null, null), Map.of(P0, 3L));
              });
      looking.await();
      assertThat(lookup).isNotDone();
      sealed.land();

      assertThat(found(lookup.get(60, TimeUnit.SECONDS))).isEqualTo(values(1, "sealed", 1L));
    }
  }

  private static List<Object> found(Optional<InternalRow> row) {
    assertThat(row).isPresent();
    return LakeRows.toJava(row.get(), TestTables.ID_NAME_AMOUNT);
  }
}
