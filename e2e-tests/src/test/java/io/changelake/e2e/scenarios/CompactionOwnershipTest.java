package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.CompactionAudit;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.LakeChangelog;
import io.changelake.e2e.compare.SnapshotAudit;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.TaskMetrics;
import io.changelake.lsm.testing.LakeTableReader;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction with several sink tasks: four tables, each fed by all tasks (Debezium's topics have
 * three partitions, keyed by primary key), must each be compacted by exactly one task — the ingest
 * writers are write-only, and two compactors of one table would conflict. Checked on what a user
 * sees:
 *
 * <ul>
 *   <li>the table equals the database, and no task failed;
 *   <li>the changelog a streaming reader sees (lookup producer, which only compaction publishes):
 *       replayed key by key it chains without a gap and ends equal to the database, with exactly
 *       one {@code -U/+U} pair per updated key;
 *   <li>{@link CompactionAudit}: the table's ingest snapshots come from as many committers as there
 *       are tasks (every task wrote it), it has compaction snapshots, every bucket has a file above
 *       level 0 (ingest writes level 0 only) and fewer live level-0 files than the ingest commits
 *       added, and exactly one task's {@code table-compactions-total} (JMX) is positive: the
 *       compactors of all tasks commit under one commit user, so the count is what tells them
 *       apart;
 *   <li>every data and changelog file in its directory was added by a snapshot (a compaction commit
 *       Paimon dropped, e.g. two compactors taking the same commit identifier, leaves its files
 *       behind).
 * </ul>
 *
 * <p>Each check is shown failing with ownership broken (nobody compacting, every task compacting,
 * two compactors racing) on a real table in {@code harness.CompactionAuditTest}.
 */
class CompactionOwnershipTest extends PipelineTestBase {
  private static final List<String> TABLES = List.of("t_alpha", "t_beta", "t_gamma", "t_delta");

  @ParameterizedTest(name = "{0} sink tasks")
  @ValueSource(ints = {2, 3})
  void everyTableIsCompactedByExactlyOneTask(int tasks) throws Exception {
    String name = "compact" + tasks;
    createDatabase(name);
    for (String table : TABLES) {
      pg.execute(
          name,
          "CREATE TABLE " + table + " (id int PRIMARY KEY, qty int, note text)",
          "INSERT INTO " + table + " SELECT i, i, 'new' FROM generate_series(1, 60) i");
    }
    Map<String, String> debezium =
        DebeziumPostgres.config(
            pg,
            name,
            name,
            TABLES.stream().map(t -> "public." + t).collect(Collectors.joining(",")));
    debezium.put("topic.creation.default.partitions", "3");
    connect.deploy(name + "-pg", debezium, 1);
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, name + "\\..*", name);
    sink.put("tasks.max", String.valueOf(tasks));
    sink.put("compaction.interval.ms", "2000");
    // keep every snapshot: the changelog and the commit history are read in full
    sink.put("compaction.snapshots.retain.max", "100000");
    connect.deploy(name + "-sink", sink, tasks);
    // each step waits for the changelog too: only compaction publishes it, so every update then
    // meets its key's previous version in a higher level and becomes a -U/+U pair
    awaitLakeAndChangelogEqualDatabase(name);
    for (int round = 1; round <= 3; round++) {
      for (String table : TABLES) {
        pg.execute(
            name,
            "UPDATE "
                + table
                + " SET qty = qty + 100, note = 'round "
                + round
                + "'"
                + " WHERE id <= 60 AND id % 3 = "
                + (round % 3),
            "INSERT INTO " + table + " VALUES (" + (100 + round) + ", 0, 'late')");
      }
      awaitLakeAndChangelogEqualDatabase(name);
    }

    for (String table : TABLES) {
      LakeChangelog.Replay replay =
          LakeChangelog.replay(
              LakeChangelog.read(LakeTableReader.fileWarehouse(warehouse), name, table),
              List.of("id"));
      // each of the 60 keys was updated once (a different third in each round)
      assertThat(replay.updatePairs())
          .as("-U/+U pairs in the changelog of %s.%s", name, table)
          .isEqualTo(60);
      assertCompactedByOneTask(name, table, tasks);
    }
  }

  private static void awaitLakeAndChangelogEqualDatabase(String name) {
    for (String table : TABLES) {
      awaitLakeEqualsDatabase(name, table);
    }
    for (String table : TABLES) {
      awaitChangelogEqualsDatabase(name, table);
    }
  }

  /** Waits until the table's changelog, replayed, chains and equals the database. */
  private static void awaitChangelogEqualsDatabase(String name, String table) {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, name, "public", table),
        new TableComparison.TableReader() {
          @Override
          public List<Map<String, Object>> read() {
            LakeChangelog.Replay replay =
                LakeChangelog.replay(
                    LakeChangelog.read(LakeTableReader.fileWarehouse(warehouse), name, table),
                    List.of("id"));
            assertThat(replay.problems()).as("changelog of " + name + "." + table).isEmpty();
            return replay.rows();
          }

          @Override
          public String side() {
            return "changelog";
          }

          @Override
          public String toString() {
            return "changelog of lake table " + name + "." + table;
          }
        },
        CATCH_UP,
        () -> connect.failure(name + "-pg", name + "-sink"));
  }

  /**
   * The table was compacted by exactly one of the tasks ({@link CompactionAudit}, shown failing
   * with nobody, every task and two racing compactors in {@code harness.CompactionAuditTest}), and
   * every file in its directory was added by a snapshot.
   */
  private static void assertCompactedByOneTask(String name, String table, int tasks)
      throws Exception {
    Map<Integer, Long> compactions = new TreeMap<>();
    for (int task = 0; task < tasks; task++) {
      compactions.put(
          task,
          TaskMetrics.tableMetric(
              name + "-sink", task, name + "." + table, "table-compactions-total"));
    }
    try (Catalog catalog =
        CatalogFactory.createCatalog(
            CatalogContext.create(
                Options.fromMap(
                    Map.of(
                        "warehouse", warehouse.toUri().toString(), "cache-enabled", "false"))))) {
      FileStoreTable t = (FileStoreTable) catalog.getTable(Identifier.create(name, table));
      assertThat(CompactionAudit.of(t).problems(tasks, compactions))
          .as("compaction of %s.%s", name, table)
          .isEmpty();
      // a compaction in flight has written files it has not committed yet: wait for it
      Awaitility.await("every file of " + table + " added by a snapshot")
          .atMost(java.time.Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          SnapshotAudit.of(t, warehouse.resolve(name + ".db").resolve(table))
                              .lostSnapshots(Map.of()))
                      .as("a dropped compaction commit leaves its files behind")
                      .isEmpty());
    }
  }
}
