package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.SnapshotAudit;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.e2e.connect.TaskMetrics;
import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.testing.S3ProxyServer;
import io.changelake.testkit.postgres.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.types.DataTypes;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 8: the warehouse on S3 (an s3proxy child process), two sink tasks committing to the same
 * three tables at once, over and over, through Paimon's JDBC catalog with its lock ({@code
 * paimon.metastore=jdbc}, {@code paimon.lock.enabled=true}, the catalog in a database of the test's
 * PostgreSQL). S3 has no atomic rename: without the lock two committers can both write snapshot
 * {@code N}, both "succeed", and the first one's snapshot is silently replaced by the second.
 *
 * <p>Debezium's topics have 4 partitions and Debezium keys records by primary key, so every table's
 * changes are spread over both tasks. The database changes (rounds of inserts, updates and deletes,
 * about 60 changes each, each round waiting until both tasks committed since the last one) until
 * each task has committed to every table at least 5 times; with a 200 ms commit interval and one
 * bucket per table the two tasks and the compactor contend for every table's lock over and over.
 * The test then checks:
 *
 * <ol>
 *   <li>every table equals the database row by row;
 *   <li><b>no snapshot was lost</b>, by three independent ledgers, each of which fails if one were:
 *       <ul>
 *         <li>commit identifiers: a task's writer numbers its commits 1, 2, 3, ... per table and
 *             commits only when it has rows, so its snapshots must carry every identifier from 1 to
 *             its highest. A lost snapshot leaves a hole (its writer goes on with the next
 *             identifier, and Paimon never re-commits the lost one);
 *         <li>the task's own count: each task publishes {@code table-commits-total} per table (in
 *             JMX: the worker runs in this JVM), counting commits it saw succeed; the table must
 *             hold exactly that many snapshots of the task's commit user ({@code
 *             changelake-sink-s8-sink-task-<n>}). A lost snapshot is a success the task counted
 *             that the table lacks;
 *         <li>the files: every data and changelog file in the bucket (read straight from s3proxy's
 *             storage directory) must have been added by some snapshot. The files of a lost
 *             snapshot stay behind, referenced by nothing — whoever committed it, the tasks or the
 *             compactor. Nothing expires snapshots during the test ({@code
 *             compaction.snapshots.retain.max} is raised), so every snapshot ever made is there to
 *             read;
 *       </ul>
 *   <li>the commits really go through the lock: while another committer holds every table's lock (a
 *       row in Paimon's lock table, with a 15 s expiry), no snapshot object is written until the
 *       lock has expired, though changes stream in;
 *   <li>the run exercised what it claims: both tasks committed many snapshots to every table,
 *       taking turns.
 * </ol>
 *
 * <p>The plugin archive must carry the PostgreSQL driver itself (a worker's class path need not
 * have one); in this JVM the driver is also on the worker's class path, so that is checked on the
 * archive.
 *
 * <p>Each ledger is then shown failing on this same run, with snapshots lost on purpose under the
 * table's lock ({@link #assertLostSnapshotsAreCaught}): a racer's overwrite (the latest snapshot of
 * task 0 replaced by a lockless committer's snapshot of the same id) and a snapshot file removed
 * behind the table's back. The lock check is shown failing on a table the test commits to through
 * the same catalog with {@code lock.enabled=false}. A real lockless race is not forced: this load
 * loses a snapshot without the lock only by chance (none of 83 in one measured run). {@code
 * harness.SnapshotAuditTest} shows each ledger on a local table too.
 */
class S3ConcurrentCommitTest extends PipelineTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(S3ConcurrentCommitTest.class);
  private static final String NAME = "s8";
  private static final String CONNECTOR = NAME + "-sink";
  private static final String CATALOG_DATABASE = "s8_catalog";
  private static final String BUCKET = "lake";
  private static final List<String> TABLES = List.of("accounts", "orders", "events");
  private static final int TASKS = 2;
  private static final int MIN_ROUNDS = 10;
  private static final int MAX_ROUNDS = 200;
  private static final int MIN_COMMITS = 5;
  private static final Duration AUDIT_TIMEOUT = Duration.ofSeconds(60);
  private static final int LOCK_HELD_SECONDS = 15;
  // a loss made on purpose audits the table under the lock, which on a loaded machine outlasted
  // the 15 s expiry: a committer then took the lock and the snapshot id the racer was to take
  private static final int LOSS_LOCK_SECONDS = 600;
  private static final String UNLOCKED = "unlocked";

  @TempDir static Path s3Directory;
  static S3ProxyServer s3;

  @BeforeAll
  static void startS3() throws IOException {
    s3 = S3ProxyServer.start(s3Directory);
    s3.createBucket(BUCKET);
  }

  @AfterAll
  static void stopS3() {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void twoTasksCommittingToTheSameTablesOnS3LoseNoSnapshot() throws Exception {
    assertThat(pluginLibraries())
        .as("the plugin archive carries a PostgreSQL driver for the JDBC catalog")
        .anyMatch(jar -> jar.startsWith("postgresql-"));

    createDatabase(NAME);
    createDatabase(CATALOG_DATABASE);
    pg.execute(
        NAME,
        "CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance bigint, note text)",
        "CREATE TABLE orders (id int PRIMARY KEY, account_id int, amount numeric(12,2),"
            + " status varchar(16))",
        "CREATE TABLE events (id int, seq int, payload text, PRIMARY KEY (id, seq))",
        "INSERT INTO accounts SELECT i, 'owner ' || i, i * 10, 'start' FROM generate_series(1, 400) i",
        "INSERT INTO orders SELECT i, i % 400 + 1, i * 1.25, 'new' FROM generate_series(1, 400) i",
        "INSERT INTO events SELECT i / 2 + 1, i % 2 + 1, 'event ' || i FROM generate_series(0, 399) i");

    Map<String, String> debezium =
        DebeziumPostgres.config(pg, NAME, NAME, "public.accounts,public.orders,public.events");
    // Debezium keys records by primary key: four partitions spread each table over both tasks
    debezium.put("topic.creation.default.partitions", "4");
    connect.deploy(NAME + "-pg", debezium, 1);
    connect.deploy(CONNECTOR, sinkConfig(), TASKS);
    TABLES.forEach(S3ConcurrentCommitTest::awaitLakeEqualsDatabase);

    // change the database until both tasks have committed to every table many times over
    int rounds = 0;
    while (rounds < MIN_ROUNDS || !everyTaskCommittedEveryTable(MIN_COMMITS)) {
      rounds++;
      if (rounds > MAX_ROUNDS) {
        throw new AssertionError(
            "after "
                + MAX_ROUNDS
                + " rounds of changes the tasks have not committed "
                + MIN_COMMITS
                + " times to every table: "
                + commitCounts()
                + "\n"
                + connect.describe(CONNECTOR));
      }
      Map<Integer, Long> before = commitsPerTask();
      changeRound(rounds);
      awaitEveryTaskCommittedSince(before);
    }
    rounds = assertCommitsWaitForTheLock(rounds);
    TABLES.forEach(S3ConcurrentCommitTest::awaitLakeEqualsDatabase);

    List<SnapshotAudit> audits = awaitNoSnapshotLost();
    for (SnapshotAudit audit : audits) {
      for (int task = 0; task < TASKS; task++) {
        assertThat(audit.snapshotsOf(user(task)))
            .as("snapshots of %s in %s", user(task), audit.table())
            .isGreaterThanOrEqualTo(MIN_COMMITS);
      }
      assertThat(audit.userSwitches())
          .as("commit users taking turns on %s: %s", audit.table(), audit.snapshots())
          .isGreaterThanOrEqualTo(MIN_COMMITS);
    }
    long snapshots = audits.stream().mapToLong(a -> a.snapshots().size()).sum();
    for (SnapshotAudit audit : audits) {
      LOG.info(
          "{}: {} snapshots ({} by task 0, {} by task 1), the committer changed {} times",
          audit.table(),
          audit.snapshots().size(),
          audit.snapshotsOf(user(0)),
          audit.snapshotsOf(user(1)),
          audit.userSwitches());
    }
    LOG.info("{} rounds of changes, {} snapshots", rounds, snapshots);

    assertLostSnapshotsAreCaught(rounds);
  }

  /**
   * The ledgers that just passed, shown failing on this very run (S3, the JDBC catalog, the tasks'
   * JMX counts) once snapshots are lost on purpose, each loss made under the table's own lock so no
   * commit is half-way through it:
   *
   * <ul>
   *   <li>{@code accounts}, a racer's overwrite: the table's latest snapshot, when task 0 wrote it
   *       (and counted it), is replaced on S3 by a snapshot of the same id that a committer without
   *       the lock writes — what a second committer on S3 without the lock does. Its rows are gone
   *       from the table. Once task 0 commits again, the ledgers must name the hole in task 0's
   *       identifiers, its count above its snapshots and the files no snapshot references — and
   *       nothing about task 1;
   *   <li>{@code orders}, a snapshot file removed behind the table's back: an older snapshot of
   *       task 1 (below every committer's latest, so no committer walks over the gap). At once the
   *       ledgers must name the hole in the snapshot ids, the hole in task 1's identifiers, its
   *       count and the unreferenced files — and nothing about task 0.
   * </ul>
   *
   * The tables now lack what those snapshots held: this is the end of the test.
   */
  private static void assertLostSnapshotsAreCaught(int rounds) throws Exception {
    Lost overwritten = loseTheLatestSnapshotOfTask0(rounds);
    Lost removed = removeAnOlderSnapshotOfTask1();
    LOG.info("lost on purpose: {} and {}", overwritten, removed);

    String orders = NAME + "." + removed.table();
    // awaited, not read once: a commit of task 0 landing between the snapshot listing and the
    // metric read shows as a count mismatch for that one reading (seen once at load 10-16); the
    // loss is permanent, so waiting cannot hide it
    Awaitility.await("every ledger naming " + removed)
        .atMost(AUDIT_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(problemsNow(removed.table()))
                    .as("what the ledgers report after %s", removed)
                    .contains(
                        orders + ": snapshot files missing: [" + removed.snapshotId() + "]",
                        orders
                            + ": commits of "
                            + user(1)
                            + " missing: ["
                            + removed.identifier()
                            + "]")
                    .anySatisfy(
                        p -> assertThat(p).startsWith(orders + ": " + user(1) + " reports "))
                    .anySatisfy(
                        p -> assertThat(p).startsWith(orders + ": files no snapshot added: ["))
                    .noneSatisfy(p -> assertThat(p).contains(user(0))));

    // task 0 must commit again to accounts for the hole in its identifiers to show
    String accounts = NAME + "." + overwritten.table();
    long committed = reportedCommits(0, accounts);
    int round = rounds;
    while (reportedCommits(0, accounts) == committed) {
      if (round - rounds > 20) {
        throw new AssertionError("task 0 did not commit to " + accounts + " after 20 rounds");
      }
      Map<Integer, Long> before = commitsPerTask();
      changeRound(++round);
      awaitEveryTaskCommittedSince(before);
    }
    Awaitility.await("every ledger naming " + overwritten)
        .atMost(AUDIT_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(problemsNow(overwritten.table()))
                    .as("what the ledgers report after %s", overwritten)
                    .contains(
                        accounts
                            + ": commits of "
                            + user(0)
                            + " missing: ["
                            + overwritten.identifier()
                            + "]")
                    // the commit-count ledger (metric against snapshots) is asserted for the
                    // removed snapshot below; here it raced task 0's next commit in one clean-clone
                    // run (metric and snapshot list read at different instants), so the two
                    // ledgers that read the table alone are asserted
                    .anySatisfy(
                        p -> assertThat(p).startsWith(accounts + ": files no snapshot added: ["))
                    .noneSatisfy(p -> assertThat(p).contains(user(1))));
  }

  /** A snapshot lost on purpose: which, and whose commit identifier went with it. */
  private record Lost(String table, long snapshotId, long identifier, String how) {
    @Override
    public String toString() {
      return how + " snapshot " + snapshotId + " of " + table + " (identifier " + identifier + ")";
    }
  }

  /**
   * Under {@code accounts}' lock, once task 0 wrote the table's latest snapshot and counted it (a
   * round of changes at a time until then), a racer without the lock replaces it: the snapshot is
   * deleted, the {@code LATEST} hint put back on the one before, and the racer commits an empty
   * snapshot, which takes the id.
   *
   * <p>The racer takes the id itself, at once and under the lock, rather than leaving it to the
   * next committer, and the snapshot is replaced only once task 0 has counted it, because the
   * sink's writers cache snapshots by path (Paimon's catalog cache, 20 per table): Paimon and the
   * writers rely on a snapshot id, once written, never being written again, which the lock
   * guarantees. When a sink task itself took the freed id, its cache still held the old snapshot
   * there, so it did not find the commit it had just landed, committed it again, and once the old
   * entry was evicted Paimon refused the retry for adding its own files a second time ("File
   * deletion conflicts"): the task failed, in one run in many (a clean-clone CI run). And a
   * snapshot replaced while task 0 was still looking for it after its commit (between its commit
   * and its count) is not found and committed again, which fills the hole. Replaced this way the
   * writers never look for their own commit at the replaced id, so they go on as they do after a
   * real racer: the racer's snapshot, or their cached view of the replaced one, as their base.
   */
  private static Lost loseTheLatestSnapshotOfTask0(int rounds) throws Exception {
    String name = "accounts";
    for (int attempt = 0; attempt < 50; attempt++) {
      try (Connection c = pg.connect(CATALOG_DATABASE);
          Catalog catalog = LakeCatalogs.open(uncachedCatalogProperties())) {
        String lock = "jdbc." + NAME + "." + name;
        takeLock(c, lock, LOSS_LOCK_SECONDS);
        try {
          FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, name));
          Snapshot latest = table.snapshotManager().latestSnapshot();
          if (latest.commitUser().equals(user(0)) && countedEverySnapshot(0, table)) {
            table.fileIO().delete(table.snapshotManager().snapshotPath(latest.id()), false);
            table.snapshotManager().commitLatestHint(latest.id() - 1);
            commitEmptySnapshotWithoutTheLock(name, latest.id());
            return new Lost(name, latest.id(), latest.commitIdentifier(), "overwritten");
          }
        } finally {
          releaseLock(c, lock);
        }
      }
      Map<Integer, Long> before = commitsPerTask();
      changeRound(rounds + 1000 + attempt);
      awaitEveryTaskCommittedSince(before);
    }
    throw new AssertionError("task 0 never wrote the latest snapshot of " + name + " in 50 rounds");
  }

  /** True when {@code task} counted every snapshot it committed to {@code table} so far. */
  private static boolean countedEverySnapshot(int task, FileStoreTable table) throws Exception {
    return SnapshotAudit.of(table, storageDirectory(table)).snapshotsOf(user(task))
        == reportedCommits(task, NAME + "." + table.name());
  }

  /**
   * A committer without the lock commits an empty snapshot to {@code name}, which must take id
   * {@code id}.
   */
  private static void commitEmptySnapshotWithoutTheLock(String name, long id) throws Exception {
    try (Catalog catalog = LakeCatalogs.open(lockless())) {
      FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, name));
      // write-only: its commit expires no snapshot, the audit reads them all
      try (TableCommitImpl commit =
          table.copy(Map.of("write-only", "true")).newCommit("racer-without-the-lock")) {
        commit.ignoreEmptyCommit(false).commit(1, List.of());
      }
      assertThat(table.snapshotManager().latestSnapshot())
          .as("the racer's snapshot of %s", name)
          .returns(id, Snapshot::id)
          .returns("racer-without-the-lock", Snapshot::commitUser);
    }
  }

  /**
   * Under {@code orders}' lock, deletes the newest snapshot of task 1 that is older than every
   * committer's latest one (so none of them, looking for its own latest, walks over the gap).
   */
  private static Lost removeAnOlderSnapshotOfTask1() throws Exception {
    String name = "orders";
    try (Connection c = pg.connect(CATALOG_DATABASE);
        Catalog catalog = LakeCatalogs.open(uncachedCatalogProperties())) {
      String lock = "jdbc." + NAME + "." + name;
      takeLock(c, lock, LOSS_LOCK_SECONDS);
      try {
        FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, name));
        List<SnapshotAudit.Commit> commits =
            SnapshotAudit.of(table, storageDirectory(table)).snapshots();
        Map<String, Long> latestOfUser = new HashMap<>();
        commits.forEach(s -> latestOfUser.put(s.user(), s.snapshotId()));
        long below = latestOfUser.values().stream().mapToLong(Long::longValue).min().orElseThrow();
        SnapshotAudit.Commit victim =
            commits.stream()
                .filter(s -> s.user().equals(user(1)) && s.snapshotId() < below)
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no older snapshot of task 1: " + commits));
        table.fileIO().delete(table.snapshotManager().snapshotPath(victim.snapshotId()), false);
        return new Lost(name, victim.snapshotId(), victim.identifier(), "removed");
      } finally {
        releaseLock(c, lock);
      }
    }
  }

  /** What the ledgers report on {@code name} right now. */
  private static List<String> problemsNow(String name) throws Exception {
    try (Catalog catalog = LakeCatalogs.open(uncachedCatalogProperties())) {
      FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, name));
      return problems(SnapshotAudit.of(table, storageDirectory(table)), NAME + "." + name);
    }
  }

  private static void releaseLock(Connection c, String lockId) throws Exception {
    try (var ps = c.prepareStatement("DELETE FROM paimon_distributed_locks WHERE lock_id = ?")) {
      ps.setString(1, lockId);
      ps.executeUpdate();
    }
  }

  private static Map<String, String> uncachedCatalogProperties() {
    Map<String, String> props = new HashMap<>(catalogProperties());
    props.put("paimon.cache-enabled", "false");
    return props;
  }

  /** The catalog of a committer on S3 without the lock, which the sink refuses to be. */
  private static Map<String, String> lockless() {
    Map<String, String> props = uncachedCatalogProperties();
    props.put("paimon.lock.enabled", "false");
    return props;
  }

  private static boolean everyTaskCommittedEveryTable(int commits) throws Exception {
    return commitCounts().values().stream().allMatch(n -> n >= commits);
  }

  /** Each task's {@code table-commits-total}, summed over the tables. */
  private static Map<Integer, Long> commitsPerTask() throws Exception {
    Map<Integer, Long> perTask = new TreeMap<>();
    for (int task = 0; task < TASKS; task++) {
      long sum = 0;
      for (String table : TABLES) {
        sum += commitsSoFar(task, NAME + "." + table);
      }
      perTask.put(task, sum);
    }
    return perTask;
  }

  /**
   * Paces the load on the sink: the next round of changes waits until every task has committed
   * since the last one, so the database never runs far ahead of the lake (on a loaded machine a
   * commit through the lock takes seconds, and unpaced rounds piled up hundreds of rounds to catch
   * up with).
   */
  private static void awaitEveryTaskCommittedSince(Map<Integer, Long> before) {
    Awaitility.await("every task of " + CONNECTOR + " committing again after " + before)
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              String failed = connect.failure(NAME + "-pg", CONNECTOR);
              if (failed != null) {
                throw new IllegalStateException(failed);
              }
              Map<Integer, Long> now = commitsPerTask();
              return before.keySet().stream().allMatch(t -> now.get(t) > before.get(t));
            });
  }

  /** {@code table-commits-total} per task and table, e.g. {@code task 0 s8.orders -> 12}. */
  private static Map<String, Long> commitCounts() throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    for (int task = 0; task < TASKS; task++) {
      for (String table : TABLES) {
        counts.put(
            "task " + task + " " + NAME + "." + table, reportedCommits(task, NAME + "." + table));
      }
    }
    return counts;
  }

  /**
   * Round {@code r} of changes to every table: 8 new keys, updates of a rotating 40th (20th), two
   * deletes.
   */
  private static void changeRound(int r) {
    int first = 400 + (r - 1) * 8 + 1;
    int last = first + 7;
    pg.execute(
        NAME,
        "INSERT INTO accounts SELECT i, 'owner ' || i, i, 'new in round %d' FROM generate_series(%d, %d) i"
            .formatted(r, first, last),
        "UPDATE accounts SET balance = balance + %d, note = 'round %d' WHERE id %% 40 = %d"
            .formatted(r, r, r % 40),
        "DELETE FROM accounts WHERE id IN (%d, %d)".formatted(r * 7, r * 7 + 3),
        "INSERT INTO orders SELECT i, i %% 97 + 1, i * 0.5, 'new' FROM generate_series(%d, %d) i"
            .formatted(first, last),
        "UPDATE orders SET amount = amount + 1.01, status = 'paid %d' WHERE id %% 40 = %d"
            .formatted(r, (r + 7) % 40),
        "DELETE FROM orders WHERE id IN (%d, %d)".formatted(r * 6, r * 6 + 1),
        "INSERT INTO events SELECT 1000 + %d, s, 'round %d' FROM generate_series(1, 8) s"
            .formatted(r, r),
        "UPDATE events SET payload = payload || '+%d' WHERE id %% 20 = %d AND seq = %d"
            .formatted(r, r % 20, r % 2 + 1),
        "DELETE FROM events WHERE id = %d".formatted(r));
  }

  /** The sink as a user deploys it against S3 with a JDBC catalog and its lock. */
  private static Map<String, String> sinkConfig() {
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, NAME + "\\..*", NAME);
    sink.putAll(catalogProperties());
    sink.put("tasks.max", String.valueOf(TASKS));
    sink.put("commit.interval.ms", "200");
    sink.put("compaction.interval.ms", "5000");
    // one file per commit and table: more commits in the time
    sink.put("table.buckets", "1");
    // keep every snapshot: the audit reads them all
    sink.put("compaction.snapshots.retain.max", "100000");
    return sink;
  }

  /** The {@code paimon.*} connector properties: the warehouse on s3proxy, the JDBC catalog. */
  private static Map<String, String> catalogProperties() {
    Map<String, String> props =
        new HashMap<>(s3.connectorProperties("s3://" + BUCKET + "/warehouse"));
    props.put("paimon.metastore", "jdbc");
    props.put("paimon.uri", pg.jdbcUrl(CATALOG_DATABASE));
    props.put("paimon.jdbc.user", PostgresServer.USER);
    props.put("paimon.jdbc.password", PostgresServer.PASSWORD);
    props.put("paimon.lock.enabled", "true");
    return props;
  }

  private static void awaitLakeEqualsDatabase(String table) {
    Map<String, String> options = LakeCatalogs.catalogOptions(catalogProperties());
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, NAME, "public", table),
        new LakeTable(options, NAME, table),
        CATCH_UP,
        () -> connect.failure(NAME + "-pg", CONNECTOR));
  }

  /**
   * Audits every table until no ledger shows a lost snapshot. Waiting only lets commits in flight
   * (a task's, a compaction's) finish; a lost snapshot never heals, so it fails at the timeout.
   */
  private static List<SnapshotAudit> awaitNoSnapshotLost() throws Exception {
    long deadline = System.nanoTime() + AUDIT_TIMEOUT.toNanos();
    while (true) {
      List<SnapshotAudit> audits = new ArrayList<>();
      List<String> problems = new ArrayList<>();
      Map<String, String> props = new HashMap<>(catalogProperties());
      props.put("paimon.cache-enabled", "false");
      try (Catalog catalog = LakeCatalogs.open(props)) {
        for (String name : TABLES) {
          FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, name));
          SnapshotAudit audit = SnapshotAudit.of(table, storageDirectory(table));
          audits.add(audit);
          problems.addAll(problems(audit, NAME + "." + name));
        }
      }
      if (problems.isEmpty()) {
        return audits;
      }
      String failed = connect.failure(NAME + "-pg", CONNECTOR);
      if (failed != null || System.nanoTime() > deadline) {
        throw new AssertionError(
            (failed == null ? "" : failed + "\n")
                + "snapshots lost:\n"
                + String.join("\n", problems)
                + "\nsnapshots: "
                + audits);
      }
      Thread.sleep(1000);
    }
  }

  private static List<String> problems(SnapshotAudit audit, String table) throws Exception {
    Map<String, Long> reported = new TreeMap<>();
    for (int task = 0; task < TASKS; task++) {
      reported.put(user(task), reportedCommits(task, table));
    }
    return audit.lostSnapshots(reported);
  }

  private static String user(int task) {
    return "changelake-sink-" + CONNECTOR + "-task-" + task;
  }

  /** Where s3proxy keeps the objects of {@code table} on the local disk. */
  private static Path storageDirectory(FileStoreTable table) {
    // s3://lake/warehouse/s8.db/accounts -> <bucket directory>/warehouse/s8.db/accounts
    String key = table.location().toUri().getPath().substring(1);
    return s3.bucketDirectory(BUCKET).resolve(key);
  }

  /**
   * For pacing only: the task's {@code table-commits-total} for {@code table}, 0 while the task
   * publishes none yet (its metrics appear with the first records of the table).
   */
  private static long commitsSoFar(int task, String table) {
    try {
      return reportedCommits(task, table);
    } catch (AssertionError | javax.management.AttributeNotFoundException e) {
      return 0;
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the metrics of task " + task, e);
    }
  }

  /** The task's {@code table-commits-total} for {@code table}, as the worker publishes it. */
  private static long reportedCommits(int task, String table) throws Exception {
    return TaskMetrics.tableMetric(CONNECTOR, task, table, "table-commits-total");
  }

  /**
   * Proves the sink's commits wait for Paimon's lock, the way a user could check it: another
   * committer takes the lock of every table (a row of Paimon's lock table {@code
   * paimon_distributed_locks}, {@code <catalog-key>.<database>.<table>}, as Paimon's committers
   * take it) with a {@value #LOCK_HELD_SECONDS} s expiry and never releases it; a round of changes
   * follows. A committer that honours the lock can take it only once it has expired (Paimon's
   * committers then delete it), so the object of each table's next snapshot must be written at
   * least {@value #LOCK_HELD_SECONDS} s after the lock was taken (its time in s3proxy's storage:
   * the snapshot's own commit time is set before its committer asks for the lock). A sink
   * committing without the lock writes it within its 200 ms interval.
   *
   * @return the number of change rounds made so far
   */
  private static int assertCommitsWaitForTheLock(int rounds) throws Exception {
    TABLES.forEach(S3ConcurrentCommitTest::awaitLakeEqualsDatabase);
    createUnlockedTable();
    Map<String, Long> taken = new TreeMap<>();
    try (Connection c = pg.connect(CATALOG_DATABASE)) {
      for (String table : TABLES) {
        taken.put(table, takeLock(c, "jdbc." + NAME + "." + table, LOCK_HELD_SECONDS));
      }
      taken.put(UNLOCKED, takeLock(c, "jdbc." + NAME + "." + UNLOCKED, LOCK_HELD_SECONDS));
    }
    // read after taking the locks: no commit to a locked table can be in flight
    Map<String, Long> before = latestSnapshotIds();
    changeRound(++rounds);
    commitWithoutTheLock();
    TABLES.forEach(S3ConcurrentCommitTest::awaitLakeEqualsDatabase);
    for (String name : TABLES) {
      assertThat(msFromLockToSnapshot(name, taken.get(name), before.get(name) + 1))
          .as(
              "ms from taking the lock of %s to writing its snapshot %s",
              name, before.get(name) + 1)
          .isGreaterThanOrEqualTo(LOCK_HELD_SECONDS * 1000L);
    }
    // the same measurement fails for a committer that ignores the lock
    assertThat(msFromLockToSnapshot(UNLOCKED, taken.get(UNLOCKED), 1))
        .as("ms from taking the lock of %s to a snapshot committed without the lock", UNLOCKED)
        .isLessThan(LOCK_HELD_SECONDS * 1000L);
    return rounds;
  }

  /** When the object of {@code table}'s snapshot {@code id} was written, after {@code takenMs}. */
  private static long msFromLockToSnapshot(String name, long takenMs, long id) throws Exception {
    Map<String, String> props = new HashMap<>(catalogProperties());
    props.put("paimon.cache-enabled", "false");
    try (Catalog catalog = LakeCatalogs.open(props)) {
      FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, name));
      Path object = storageDirectory(table).resolve("snapshot").resolve("snapshot-" + id);
      return Files.getLastModifiedTime(object).toMillis() - takenMs;
    }
  }

  /** A table next to the sink's, in the same catalog, that only this test writes. */
  private static void createUnlockedTable() throws Exception {
    try (Catalog catalog = LakeCatalogs.open(catalogProperties())) {
      catalog.createTable(
          Identifier.create(NAME, UNLOCKED),
          org.apache.paimon.schema.Schema.newBuilder()
              .column("id", DataTypes.INT().notNull())
              .primaryKey("id")
              .option("bucket", "1")
              .build(),
          false);
    }
  }

  /**
   * Commits a row to {@link #UNLOCKED} through the same catalog opened with {@code
   * lock.enabled=false}: a committer on S3 without the lock, which the sink refuses to be.
   */
  private static void commitWithoutTheLock() throws Exception {
    try (Catalog catalog = LakeCatalogs.open(lockless())) {
      FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, UNLOCKED));
      BatchWriteBuilder builder = table.newBatchWriteBuilder();
      try (BatchTableWrite write = builder.newWrite();
          BatchTableCommit commit = builder.newCommit()) {
        write.write(GenericRow.of(1));
        commit.commit(write.prepareCommit());
      }
    }
  }

  /**
   * Inserts the lock row, expiring after {@code seconds}, retrying while a committer holds the lock
   * at this moment; returns the time just before the successful insert.
   */
  private static long takeLock(Connection c, String lockId, int seconds) throws Exception {
    for (int attempt = 0; ; attempt++) {
      long now = System.currentTimeMillis();
      try (var ps =
          c.prepareStatement(
              "INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES (?, ?)")) {
        ps.setString(1, lockId);
        ps.setLong(2, seconds);
        ps.executeUpdate();
        return now;
      } catch (java.sql.SQLException e) {
        // 23505: the row exists, a commit holds the lock right now; it releases it in seconds
        if (!"23505".equals(e.getSQLState()) || attempt > 200) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  private static Map<String, Long> latestSnapshotIds() throws Exception {
    Map<String, String> props = new HashMap<>(catalogProperties());
    props.put("paimon.cache-enabled", "false");
    Map<String, Long> ids = new TreeMap<>();
    try (Catalog catalog = LakeCatalogs.open(props)) {
      for (String name : TABLES) {
        FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create(NAME, name));
        ids.put(name, table.snapshotManager().latestSnapshotId());
      }
    }
    return ids;
  }

  private static List<String> pluginLibraries() throws IOException {
    try (Stream<Path> files = Files.walk(PluginWorkers.pluginPath())) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".jar")).toList();
    }
  }
}
