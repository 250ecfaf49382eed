package io.changelake.lsm.write;

import static io.changelake.lsm.testing.LakeRows.delete;
import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;

class TableWriterLookupTest extends OrdersTableTest {
  private static final SourcePartition P0 = new SourcePartition("db.inventory.orders", 0);

  @Override
  int buckets() {
    return 4;
  }

  private static List<Object> found(Optional<InternalRow> row) {
    assertThat(row).isPresent();
    return LakeRows.toJava(row.get(), TestTables.ID_NAME_AMOUNT);
  }

  @Test
  void findsCommittedRowsAndNothingForMissingOrDeletedKeys() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      for (int id = 1; id <= 20; id++) {
        writer.write(insert(id, "item-" + id, (long) id));
      }
      writer.commit(Map.of(P0, 20L));
      writer.write(update(7, "item-7b", 70L));
      writer.write(delete(9, null, null));
      writer.commit(Map.of(P0, 22L));

      // only the key columns of the probe matter
      assertThat(found(writer.lookup(insert(7, null, null), Map.of(P0, 22L))))
          .isEqualTo(values(7, "item-7b", 70L));
      assertThat(found(writer.lookup(insert(13, "ignored", 0L), Map.of(P0, 22L))))
          .isEqualTo(values(13, "item-13", 13L));
      assertThat(writer.lookup(insert(9, null, null), Map.of(P0, 22L))).isEmpty();
      assertThat(writer.lookup(insert(99, null, null), Map.of(P0, 22L))).isEmpty();
    }
    // the cost claim of KeyLookup: the key's filter plans the key's bucket only
    FileStoreTable table = table();
    List<Split> all = table.newReadBuilder().newScan().plan().splits();
    List<Split> forKey =
        table
            .newReadBuilder()
            .withFilter(new PredicateBuilder(table.rowType()).equal(0, 7))
            .newScan()
            .plan()
            .splits();
    assertThat(all).hasSize(4);
    assertThat(forKey).hasSize(1);
  }

  @Test
  void aKeyUpdatedInTheUncommittedBatchIsFoundInTheBufferWithoutACommit() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "a", 1L));
      writer.write(insert(2, "b", 2L));
      writer.commit(Map.of(P0, 2L));
      // starts key tracking; nothing uncommitted, so nothing to commit
      assertThat(found(writer.lookup(insert(1, null, null), Map.of(P0, 2L))))
          .isEqualTo(values(1, "a", 1L));

      writer.write(insert(3, "c", 3L));
      writer.write(update(3, "c2", 33L));
      writer.write(update(1, "a2", 11L));
      writer.write(insert(4, "d", 4L));
      writer.write(delete(4, null, null));

      assertThat(found(writer.lookup(insert(3, null, null), Map.of(P0, 7L))))
          .isEqualTo(values(3, "c2", 33L));
      assertThat(found(writer.lookup(insert(1, null, null), Map.of(P0, 7L))))
          .isEqualTo(values(1, "a2", 11L));
      assertThat(writer.lookup(insert(4, null, null), Map.of(P0, 7L))).as("deleted").isEmpty();
      assertThat(writer.hasUncommittedRows()).as("no lookup committed").isTrue();
      assertThat(table().snapshotManager().latestSnapshotId()).isEqualTo(1L);

      writer.commit(Map.of(P0, 7L));
      // after the commit the table answers again
      assertThat(found(writer.lookup(insert(1, null, null), Map.of(P0, 7L))))
          .isEqualTo(values(1, "a2", 11L));
      assertThat(writer.lookup(insert(4, null, null), Map.of(P0, 7L))).isEmpty();
    }
  }

  @Test
  void aHotKeyUpdatedAndLookedUpThousandsOfTimesCostsNoSnapshotPerUpdate() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "doc", 0L));
      writer.commit(Map.of(P0, 1L));
      for (long n = 1; n <= 5_000; n++) {
        // what the sink does for an update whose TOASTed column is a placeholder: read the
        // stored version, fill the column from it, write the new version
        InternalRow stored = writer.lookup(insert(1, null, null), Map.of(P0, n)).orElseThrow();
        writer.write(update(1, stored.getString(1).toString(), n));
      }
      writer.commit(Map.of(P0, 5_001L));
    }
    assertThat(table().snapshotManager().latestSnapshotId()).isEqualTo(2L);
    assertThat(LakeRows.read(table())).containsExactly(values(1, "doc", 5_000L));
  }

  @Test
  void aKeyOfAPartialUpdateTableWrittenInTheUncommittedBatchIsCommittedFirstAndMerged() {
    Identifier wide = Identifier.create("shop", "wide");
    LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            wide,
            TestTables.ID_NAME_AMOUNT,
            List.of("id"),
            new TableLayout(
                List.of(),
                2,
                MergeEngine.PARTIAL_UPDATE,
                ChangelogProducer.NONE,
                List.of(),
                Map.of())));
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(wide);
      writer.write(insert(1, "a", 1L));
      writer.commit(Map.of(P0, 1L));
      assertThat(writer.lookup(insert(2, null, null), Map.of(P0, 1L))).isEmpty();
      // the newest version alone is not the stored row of a partial-update table
      writer.write(insert(1, null, 10L));

      assertThat(found(writer.lookup(insert(1, null, null), Map.of(P0, 2L))))
          .isEqualTo(values(1, "a", 10L));
      assertThat(writer.hasUncommittedRows()).as("the lookup committed the batch").isFalse();
    }
  }

  @Test
  void aHotKeyOfAPartialUpdateTableWithOneWholeRowGroupIsAnsweredFromTheBufferNullsIncluded() {
    // as the sink creates a table one topic feeds: one group over every value column, ordered by
    // the table's sequence field, deletes removing the row
    Identifier accounts = Identifier.create("shop", "accounts");
    LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            accounts,
            RowType.builder()
                .field("id", DataTypes.INT().notNull())
                .field("name", DataTypes.STRING())
                .field("amount", DataTypes.BIGINT())
                .field("seq", DataTypes.BIGINT().notNull())
                .build(),
            List.of("id"),
            new TableLayout(
                List.of(),
                1,
                MergeEngine.PARTIAL_UPDATE,
                ChangelogProducer.NONE,
                List.of("seq"),
                Map.of(
                    "fields.seq.sequence-group", "name,amount",
                    "partial-update.remove-record-on-sequence-group", "seq"))));
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(accounts);
      writer.write(insert(1, "doc", 5L, 0L));
      writer.commit(Map.of(P0, 1L));
      for (long n = 1; n <= 1_000; n++) {
        InternalRow stored = writer.lookup(insert(1, null, null, 0L), Map.of(P0, n)).orElseThrow();
        // the amount is set to NULL by every update: the group takes it whole
        writer.write(update(1, stored.getString(1).toString(), null, n));
      }
      InternalRow newest = writer.lookup(insert(1, null, null, 0L), Map.of(P0, 1_001L)).get();
      assertThat(LakeRows.toJava(newest, LakeTables.open(catalog, accounts).rowType()))
          .isEqualTo(values(1, "doc", null, 1_000L));
      assertThat(writer.hasUncommittedRows()).as("no lookup committed").isTrue();
      writer.commit(Map.of(P0, 1_001L));
    }
    assertThat(LakeTables.open(catalog, accounts).snapshotManager().latestSnapshotId())
        .isEqualTo(2L);
    assertThat(LakeRows.read(LakeTables.open(catalog, accounts)))
        .containsExactly(values(1, "doc", null, 1_000L));
  }

  @Test
  void keyVersionsBeyondTheCapAreCommittedBeforeTheyAreRead() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.commit(Map.of(P0, 0L));
      assertThat(writer.lookup(insert(1, null, null), Map.of(P0, 0L))).isEmpty();
      // the pool's budget is 8 MiB, kept versions take at most a quarter: the first 1 MiB row
      // fits, the second would pass 2 MiB
      String big = "x".repeat(1 << 20);
      for (int id = 1; id <= 3; id++) {
        writer.write(insert(id, big + id, (long) id));
      }

      assertThat(found(writer.lookup(insert(1, null, null), Map.of(P0, 3L))).get(1))
          .isEqualTo(big + 1);
      assertThat(writer.hasUncommittedRows()).as("kept: no commit").isTrue();
      assertThat(found(writer.lookup(insert(3, null, null), Map.of(P0, 3L))).get(1))
          .isEqualTo(big + 3);
      assertThat(writer.hasUncommittedRows()).as("not kept: committed first").isFalse();
    }
  }

  @Test
  void aKeyNotWrittenSinceTheLastCommitIsReadWithoutCommitting() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "a", 1L));
      writer.commit(Map.of(P0, 1L));
      writer.lookup(insert(1, null, null), Map.of(P0, 1L));
      writer.write(insert(2, "uncommitted", 2L));

      assertThat(found(writer.lookup(insert(1, null, null), Map.of(P0, 2L))))
          .isEqualTo(values(1, "a", 1L));

      assertThat(writer.hasUncommittedRows()).isTrue();
      assertThat(CommittedOffsets.read(table(), "sink-")).isEqualTo(Map.of(P0, 1L));
    }
  }

  @Test
  void theFirstLookupCommitsRowsWrittenBeforeKeysWereTracked() {
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(orders);
      writer.write(insert(1, "a", 1L));
      writer.write(update(1, "a2", 2L));

      assertThat(found(writer.lookup(insert(1, null, null), Map.of(P0, 2L))))
          .isEqualTo(values(1, "a2", 2L));
      assertThat(writer.hasUncommittedRows()).isFalse();
    }
  }

  @Test
  void seesRowsOtherWritersCommittedAfterTheWriterOpened() {
    try (WriterPool pool = pool("sink-0");
        WriterPool other = pool("sink-1")) {
      TableWriter writer = pool.writer(orders);
      assertThat(writer.lookup(insert(5, null, null), Map.of(P0, 0L))).isEmpty();
      TableWriter otherWriter = other.writer(orders);
      otherWriter.write(insert(5, "from sink-1", 5L));
      otherWriter.commit(Map.of(new SourcePartition("db.inventory.orders", 1), 1L));

      assertThat(found(writer.lookup(insert(5, null, null), Map.of(P0, 0L))))
          .isEqualTo(values(5, "from sink-1", 5L));
    }
  }

  @Test
  void findsByACompositeKeyInAPartitionedPartialUpdateTable() {
    Identifier byRegion = Identifier.create("shop", "by_region");
    RowType rowType =
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("region", DataTypes.STRING().notNull())
            .field("amount", DataTypes.BIGINT())
            .build();
    LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            byRegion,
            rowType,
            List.of("id", "region"),
            new TableLayout(
                List.of("region"),
                2,
                MergeEngine.PARTIAL_UPDATE,
                ChangelogProducer.NONE,
                List.of(),
                Map.of())));
    try (WriterPool pool = pool("sink-0")) {
      TableWriter writer = pool.writer(byRegion);
      writer.write(insert(1, "eu", 10L));
      writer.write(insert(1, "us", 20L));
      writer.commit(Map.of(P0, 2L));
      writer.write(insert(1, "eu", null)); // partial update: amount stays

      Optional<InternalRow> eu = writer.lookup(insert(1, "eu", null), Map.of(P0, 3L));
      Optional<InternalRow> us = writer.lookup(insert(1, "us", null), Map.of(P0, 3L));

      assertThat(LakeRows.toJava(eu.orElseThrow(), rowType)).isEqualTo(values(1, "eu", 10L));
      assertThat(LakeRows.toJava(us.orElseThrow(), rowType)).isEqualTo(values(1, "us", 20L));
      assertThat(writer.lookup(insert(1, "apac", null), Map.of(P0, 3L))).isEmpty();
    }
  }

  @Test
  void tablesWithoutPrimaryKeyCannotBeLookedUp() throws Exception {
    Identifier log = Identifier.create("shop", "log");
    catalog.createTable(log, Schema.newBuilder().column("id", DataTypes.INT()).build(), false);
    FileStoreTable table = (FileStoreTable) catalog.getTable(log);
    assertThatThrownBy(() -> new KeyLookup(table))
        .hasMessageContaining("shop.log")
        .hasMessageContaining("no primary key");
  }
}
