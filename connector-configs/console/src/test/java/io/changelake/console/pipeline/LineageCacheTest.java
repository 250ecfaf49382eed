package io.changelake.console.pipeline;

import static io.changelake.lsm.testing.LakeRows.insert;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.commit.CommitMark;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.WriterPool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pipelines page's per-table cache on real Paimon tables written like the sink writes them. */
class LineageCacheTest {
  private static final SourcePartition CDC = new SourcePartition("shop.public.orders", 0);

  @TempDir Path dir;
  private Catalog catalog;
  private WriterPool pool;
  private LineageCache cache;
  private final Identifier orders = Identifier.create("shop", "orders");
  private int nextId;

  @BeforeEach
  void lake() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
    LakeTables.createOrOpen(catalog, TestTables.spec("shop", "orders", 1));
    pool = TestTables.smallPool(catalog, dir, "shop-sink-0");
    cache = new LineageCache(catalog);
  }

  @AfterEach
  void close() throws Exception {
    cache.close();
    pool.close();
    catalog.close();
  }

  @Test
  void aTableIsReReadOnlyWhenItCommittedAndThenShowsItsNewestSourceTime() {
    commit(10, 1_000L);
    TableLineage first = lineage();
    assertThat(first.topics()).containsExactly("shop.public.orders");
    assertThat(first.newestSourceTimestamp()).isEqualTo(1_000L);

    assertThat(lineage())
        .as("nothing committed: the same lineage, nothing re-read")
        .isSameAs(first);

    commit(20, 2_000L);
    TableLineage second = lineage();
    assertThat(second.latestSnapshot()).isEqualTo(first.latestSnapshot() + 1);
    assertThat(second.newestSourceTimestamp()).isEqualTo(2_000L);
    assertThat(second.topics()).containsExactly("shop.public.orders");
  }

  @Test
  void theSourceTimeOfAnOlderCommitIsKeptWhenNewerCommitsCarryNone() {
    commit(10, 5_000L);
    lineage();
    // more than the snapshots searched, none with a stream position (flattened records)
    for (int i = 0; i < TableLineage.SNAPSHOTS_SEARCHED + 2; i++) {
      commit(11 + i, null);
    }

    assertThat(lineage().newestSourceTimestamp()).isEqualTo(5_000L);
  }

  @Test
  void aTableNotInTheLakeHasNoLineageAndIsForgotten() {
    commit(1, 1L);
    TableLineage before = lineage();
    List<String> problems = new ArrayList<>();

    Map<String, TableLineage> read =
        cache.lineages(List.of(Identifier.create("shop", "missing")), problems);

    assertThat(read).containsEntry("shop.missing", null);
    assertThat(problems).isEmpty();
    cache.retainOnly(Set.of());
    assertThat(lineage()).as("read again after being forgotten").isNotSameAs(before);
  }

  @Test
  void aPollLooksAgainOnlyAtTheTablesLookedAtLongestAgoSoEveryTableIsSeenInTurn() {
    Identifier items = Identifier.create("shop", "items");
    LakeTables.createOrOpen(catalog, TestTables.spec("shop", "items", 1));
    List<Identifier> both = List.of(orders, items);
    commit(orders, 1, 1_000L);
    commit(items, 1, 1_000L);
    try (LineageCache onePerPoll = new LineageCache(catalog, 1)) {
      List<String> problems = new ArrayList<>();
      onePerPoll.lineages(both, problems);
      commit(orders, 2, 2_000L);
      commit(items, 2, 2_000L);

      Map<String, TableLineage> first = onePerPoll.lineages(both, problems);
      Map<String, TableLineage> second = onePerPoll.lineages(both, problems);

      assertThat(first.values().stream().filter(l -> l.newestSourceTimestamp() == 2_000L).count())
          .as("one table looked at again in the first poll, the other shown as it was")
          .isEqualTo(1);
      assertThat(second.values()).allMatch(l -> l.newestSourceTimestamp() == 2_000L);
      assertThat(problems).isEmpty();
    }
  }

  private TableLineage lineage() {
    List<String> problems = new ArrayList<>();
    TableLineage lineage = cache.lineages(List.of(orders), problems).get("shop.orders");
    assertThat(problems).isEmpty();
    return lineage;
  }

  private void commit(long offset, Long sourceTs) {
    commit(orders, offset, sourceTs);
  }

  private void commit(Identifier table, long offset, Long sourceTs) {
    pool.writer(table).write(insert(nextId++, "x", 1L));
    Map<SourcePartition, String> marks =
        sourceTs == null
            ? Map.of()
            : Map.of(
                CDC,
                new CommitMark(
                        "POSTGRES_LSN:" + offset,
                        Optional.empty(),
                        Optional.of(
                            new CommitMark.Stream("POSTGRES_LSN:" + offset, sourceTs, "shop/shop")))
                    .encode()
                    .orElseThrow());
    pool.writer(table).commit(new SourceProgress(Map.of(CDC, offset), marks));
  }
}
