package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.paimon13.TableDump;
import io.changelake.lsm.testing.LakeTableReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Tables this build writes (Paimon 1.4) stay readable by engines still on Paimon 1.3: a table with
 * inserts, updates, deletes, an added column, a widened column and compactions, read by a reader on
 * Paimon 1.3.1 in a JVM of its own (e2e-tests/reader-paimon-1.3), prints exactly what the same
 * reader prints on this build's Paimon, and that is the database's content.
 */
class OlderPaimonReaderTest extends PipelineTestBase {

  @Test
  void paimon13ReadsATableWrittenWithUpdatesDeletesSchemaChangesAndCompactions() throws Exception {
    String db = "old_reader";
    createDatabase(db);
    pg.execute(
        db,
        "CREATE TABLE evolving (id int PRIMARY KEY, qty int, price numeric(10,2), name text,"
            + " at timestamp)",
        "INSERT INTO evolving SELECT i, i, i * 1.5, 'n' || i, timestamp '2026-01-01' + i *"
            + " interval '1 hour' FROM generate_series(1, 120) i");
    startPipeline(db, "public.evolving", Map.of());
    awaitLakeEqualsDatabase(db, "evolving");

    pg.execute(
        db,
        "UPDATE evolving SET qty = qty + 100, name = NULL WHERE id % 4 = 0",
        "DELETE FROM evolving WHERE id % 9 = 0",
        "ALTER TABLE evolving ADD COLUMN note text",
        "ALTER TABLE evolving ALTER COLUMN qty TYPE bigint",
        "INSERT INTO evolving SELECT i, i * 3000000000, i, 'late', now()::timestamp, 'added'"
            + " FROM generate_series(121, 150) i",
        "UPDATE evolving SET note = 'set later', qty = qty * 5000000000 WHERE id <= 20");
    awaitLakeEqualsDatabase(db, "evolving");
    long synced = latestSnapshot(db).id();
    // the sink compacts every few seconds: wait for a compaction over the last changes, so the
    // old reader meets compacted files (and their changelog) of both schemas
    Awaitility.await().atMost(CATCH_UP).until(() -> compactedSince(db, synced));

    List<String> current = TableDump.dump(warehouse.toUri().toString(), db, "evolving");
    List<String> old = dumpOnPaimon13(db, "evolving");
    assertThat(old).as("Paimon 1.3.1 reads what Paimon 1.4 reads").isEqualTo(current);
    assertThat(old.get(0)).contains("qty BIGINT", "note STRING");
    assertThat(old)
        .as("the schema line and one line per row of the database")
        .hasSize(1 + DbTableReader.read(pg, db, "public", "evolving").rows().size());
  }

  private static Snapshot latestSnapshot(String db) throws Exception {
    try (Catalog catalog = catalog()) {
      FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(db, "evolving"));
      return table.snapshotManager().latestSnapshot();
    }
  }

  private static boolean compactedSince(String db, long snapshotId) throws Exception {
    try (Catalog catalog = catalog()) {
      FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(db, "evolving"));
      long latest = table.snapshotManager().latestSnapshotId();
      for (long id = snapshotId + 1; id <= latest; id++) {
        if (table.snapshotManager().snapshot(id).commitKind() == Snapshot.CommitKind.COMPACT) {
          return true;
        }
      }
      return false;
    }
  }

  private static Catalog catalog() {
    Options options = Options.fromMap(LakeTableReader.fileWarehouse(warehouse));
    options.setString("cache-enabled", "false");
    return CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  /** {@link TableDump} of {@code db.table} run on Paimon 1.3.1, in a JVM of its own. */
  private static List<String> dumpOnPaimon13(String db, String table)
      throws IOException, InterruptedException {
    String classPath = System.getProperty("changelake.paimon13.classpath");
    assertThat(classPath).as("system property changelake.paimon13.classpath").isNotBlank();
    Path out = Files.createTempFile(warehouse, "dump13", ".txt");
    Path err = Files.createTempFile(warehouse, "dump13", ".err");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx256m",
                "-cp",
                classPath,
                TableDump.class.getName(),
                warehouse.toUri().toString(),
                db,
                table));
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!process.waitFor(Duration.ofSeconds(120).toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the Paimon 1.3.1 reader did not finish in 120 s");
    }
    assertThat(process.exitValue())
        .as("the Paimon 1.3.1 reader's exit code; its stderr:\n%s", Files.readString(err))
        .isZero();
    return Files.readAllLines(out, StandardCharsets.UTF_8);
  }
}
