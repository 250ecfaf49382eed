package io.changelake.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.SnapshotAudit;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 8's loss detectors ({@link SnapshotAudit#lostSnapshots}), each shown to catch a loss
 * made to happen on a real Paimon table with two committers: a snapshot overwritten by a racer
 * taking the same id (what S3 without a lock does), a snapshot file removed behind the table's
 * back, and a commit Paimon drops silently for its stale identifier. The clean run passes all of
 * them.
 */
class SnapshotAuditTest {
  @TempDir Path warehouse;

  private Catalog catalog;
  private FileStoreTable table;
  private final Map<String, Committer> committers = new HashMap<>();

  /** One commit user's writer, numbering its commits 1, 2, 3 ... as the sink does. */
  private final class Committer implements AutoCloseable {
    final String user;
    final StreamTableWrite write;
    final StreamTableCommit commit;
    long identifier;
    long succeeded;

    Committer(String user) {
      this.user = user;
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(user);
      write = builder.newWrite();
      commit = builder.newCommit();
    }

    /** Writes row {@code id} and commits it under the next identifier, as the sink would. */
    void commitRow(int id) throws Exception {
      commitRowAs(id, ++identifier);
    }

    /** As above under {@code id}: Paimon drops it silently when the user already committed it. */
    void commitRowAs(int id, long commitIdentifier) throws Exception {
      write.write(GenericRow.of(id, BinaryString.fromString(user + " " + id)));
      commit.filterAndCommit(
          Map.of(commitIdentifier, write.prepareCommit(false, commitIdentifier)));
      // what the sink's table-commits-total counts: a commit call that returned normally
      succeeded++;
    }

    @Override
    public void close() throws Exception {
      write.close();
      commit.close();
    }
  }

  @BeforeEach
  void createTable() throws Exception {
    catalog =
        CatalogFactory.createCatalog(
            CatalogContext.create(
                Options.fromMap(
                    Map.of("warehouse", warehouse.toUri().toString(), "cache-enabled", "false"))));
    catalog.createDatabase("audit", true);
    Identifier id = Identifier.create("audit", "t");
    catalog.createTable(
        id,
        Schema.newBuilder()
            .column("id", DataTypes.INT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .option("bucket", "1")
            .option("write-only", "true")
            .build(),
        false);
    table = (FileStoreTable) catalog.getTable(id);
    committers.put("a", new Committer("a"));
    committers.put("b", new Committer("b"));
  }

  @AfterEach
  void close() throws Exception {
    for (Committer c : committers.values()) {
      c.close();
    }
    catalog.close();
  }

  @Test
  void commitsTakingTurnsLoseNothing() throws Exception {
    a().commitRow(1);
    b().commitRow(2);
    a().commitRow(3);
    b().commitRow(4);
    a().commitRow(5);

    SnapshotAudit audit = audit();
    assertThat(audit.lostSnapshots(reported())).isEmpty();
    assertThat(audit.snapshots()).hasSize(5);
    assertThat(audit.userSwitches()).isEqualTo(4);
  }

  @Test
  void aSnapshotReplacedByARacerOfTheSameIdIsCaughtByEveryCommitLedger() throws Exception {
    a().commitRow(1);
    b().commitRow(2);
    a().commitRow(3); // snapshot 3, a's identifier 2: about to be lost
    // the race on S3: b read "latest is 2" before a's snapshot 3 appeared and writes its own
    // snapshot 3 over a's. Made to happen: a's snapshot 3 removed and the hint put back to 2
    table.fileIO().delete(table.snapshotManager().snapshotPath(3), false);
    table.snapshotManager().commitLatestHint(2);
    b().commitRow(4); // takes id 3
    a().commitRow(5);

    SnapshotAudit audit = audit();
    assertThat(audit.missingSnapshotIds())
        .as("the ids have no hole: the racer took id 3")
        .isEmpty();
    assertThat(audit.lostSnapshots(reported()))
        .hasSize(3)
        .anySatisfy(p -> assertThat(p).isEqualTo("audit.t: commits of a missing: [2]"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .isEqualTo("audit.t: a reports 3 commits, the table holds 2 snapshots of it"))
        .anySatisfy(p -> assertThat(p).startsWith("audit.t: files no snapshot added: [data-"));
  }

  @Test
  void aSnapshotFileRemovedBehindTheTablesBackIsCaught() throws Exception {
    a().commitRow(1);
    b().commitRow(2);
    a().commitRow(3);
    table.fileIO().delete(table.snapshotManager().snapshotPath(2), false);

    // (b's identifiers have no hole: b has no snapshot left at all, which its count shows)
    assertThat(audit().lostSnapshots(reported()))
        .hasSize(3)
        .contains(
            "audit.t: snapshot files missing: [2]",
            "audit.t: b reports 1 commits, the table holds 0 snapshots of it")
        .anySatisfy(p -> assertThat(p).startsWith("audit.t: files no snapshot added: [data-"));
  }

  @Test
  void aCommitDroppedForItsStaleIdentifierIsCaughtByTheCountAndTheFiles() throws Exception {
    a().commitRow(1);
    a().commitRow(2);
    // a restarted writer reusing identifier 2 (restart position not taken from the table)
    a().commitRowAs(3, 2);
    b().commitRow(4);

    List<String> problems = audit().lostSnapshots(reported());
    assertThat(problems)
        .as("no identifier is missing, but the count and the files show the dropped commit")
        .hasSize(2)
        .anySatisfy(
            p ->
                assertThat(p)
                    .isEqualTo("audit.t: a reports 3 commits, the table holds 2 snapshots of it"))
        .anySatisfy(p -> assertThat(p).startsWith("audit.t: files no snapshot added: [data-"));
  }

  private Committer a() {
    return committers.get("a");
  }

  private Committer b() {
    return committers.get("b");
  }

  private Map<String, Long> reported() {
    Map<String, Long> out = new HashMap<>();
    committers.values().forEach(c -> out.put(c.user, c.succeeded));
    return out;
  }

  private SnapshotAudit audit() {
    return SnapshotAudit.of(table, warehouse.resolve("audit.db").resolve("t"));
  }
}
