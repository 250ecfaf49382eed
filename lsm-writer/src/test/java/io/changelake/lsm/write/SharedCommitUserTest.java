package io.changelake.lsm.write;

import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.fault.WriterFencedException;
import io.changelake.lsm.testing.LakeRows;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two live writer pools under one commit user on one real table: a zombie task next to its
 * replacement, two clusters on one warehouse, a connector re-created under the same name. Paimon
 * drops the second commit of an identifier as "already committed"; neither may lose rows silently.
 */
class SharedCommitUserTest extends OrdersTableTest {
  private static final SourcePartition P0 = new SourcePartition("db.inventory.orders", 0);

  /** A writer pool of commit user sink-0 with its own spill folder. */
  private WriterPool instance(String name) {
    return new WriterPool(
        catalog,
        new WriterSettings(
            "sink-0", dir.resolve("spill-" + name), 8 << 20, java.time.Duration.ofHours(1)));
  }

  @Test
  void anOlderInstanceCommittingAfterTheNewerOneIsFencedInsteadOfDroppedSilently() {
    try (WriterPool zombie = instance("zombie");
        WriterPool replacement = instance("replacement")) {
      TableWriter old = zombie.writer(orders);
      TableWriter current = replacement.writer(orders);
      old.write(insert(1, "written by the zombie", 1L));
      current.write(insert(2, "written by the replacement", 2L));
      CommitResult committed = current.commit(Map.of(P0, 5L));

      // both writers start at the same identifier: Paimon would drop the zombie's as committed
      assertThatThrownBy(() -> old.commit(Map.of(P0, 3L)))
          .isInstanceOf(WriterFencedException.class)
          .hasMessageContaining("shop.orders")
          .hasMessageContaining("'sink-0'")
          .hasMessageContaining("snapshot " + committed.snapshotId().getAsLong())
          .hasMessageContaining("started later")
          .hasMessageContaining("zombie");
      assertThatThrownBy(() -> old.write(insert(3, "after the fence", 3L)))
          .hasMessageContaining("failed earlier");
    }
    assertThat(LakeRows.read(table())).containsExactly(values(2, "written by the replacement", 2L));
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 5L));
  }

  @Test
  void aNewerInstanceWhoseIdentifierTheOlderOneTookStillLandsAndFencesTheOlder() {
    try (WriterPool zombie = instance("zombie");
        WriterPool replacement = instance("replacement")) {
      TableWriter old = zombie.writer(orders);
      TableWriter current = replacement.writer(orders);
      old.write(insert(1, "written by the zombie", 1L));
      CommitResult zombies = old.commit(Map.of(P0, 3L));
      current.write(insert(2, "written by the replacement", 2L));

      CommitResult replacements = current.commit(Map.of(P0, 5L));

      assertThat(replacements.snapshotId()).isPresent();
      assertThat(replacements.commitIdentifier()).isGreaterThan(zombies.commitIdentifier());
      old.write(insert(3, "written by the zombie later", 3L));
      assertThatThrownBy(() -> old.commit(Map.of(P0, 7L)))
          .isInstanceOf(WriterFencedException.class)
          .hasMessageContaining("started later");
      // the replacement goes on committing normally
      current.write(insert(4, "written by the replacement later", 4L));
      assertThat(current.commit(Map.of(P0, 9L)).snapshotId()).isPresent();
    }
    assertThat(LakeRows.read(table()))
        .containsExactly(
            values(1, "written by the zombie", 1L),
            values(2, "written by the replacement", 2L),
            values(4, "written by the replacement later", 4L));
    assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 9L));
  }

  @Test
  void aTruncateOfAnOlderInstanceIsFencedToo() {
    try (WriterPool zombie = instance("zombie");
        WriterPool replacement = instance("replacement")) {
      TableWriter old = zombie.writer(orders);
      TableWriter current = replacement.writer(orders);
      current.write(insert(2, "written by the replacement", 2L));
      current.commit(Map.of(P0, 5L));

      assertThatThrownBy(() -> old.truncate(Map.of(P0, 4L)))
          .isInstanceOf(WriterFencedException.class);
    }
    assertThat(LakeRows.read(table())).containsExactly(values(2, "written by the replacement", 2L));
  }
}
