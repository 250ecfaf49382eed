package io.changelake.lsm.write;

import io.changelake.lsm.commit.CommitFence;
import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.DataFileBytes;
import io.changelake.lsm.commit.OffsetFallbackStore;
import io.changelake.lsm.commit.OffsetProperties;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.commit.TruncateMarker;
import io.changelake.lsm.fault.BrokenWriterException;
import io.changelake.lsm.fault.CommitConflictException;
import io.changelake.lsm.fault.LakeDataException;
import io.changelake.lsm.fault.LakeException;
import io.changelake.lsm.fault.LakeUnavailableException;
import io.changelake.lsm.fault.WriterFencedException;
import io.changelake.lsm.table.LakeTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.HintFileUtils;
import org.apache.paimon.utils.SnapshotManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest writer of one table inside a {@link WriterPool}: write-only (the compactor owns
 * compaction), spilling to the pool's directory, buffering in the pool's shared memory.
 *
 * <p>A commit that failed stays pending and is committed again, together with newer data, by the
 * next {@link #commit}: Paimon's {@code filterAndCommitMultiple} drops committables whose
 * identifier this commit user already committed, so a retry never adds files twice.
 *
 * <p>Every snapshot it commits names its pool's {@link CommitFence} instance, and each commit
 * checks that it landed in a snapshot of this instance: another live instance under the same commit
 * user would otherwise make Paimon drop this one's commits as already committed.
 */
final class PooledTableWriter implements TableWriter {
  /** How far a writer moves its commit identifiers past an older instance's newest. */
  private static final long IDENTIFIER_LEAP = 1_000_000L;

  /**
   * Whether tables ordered by a {@code sequence.field} flush their sealed rows off the task thread
   * (two writer generations, see {@link #seal}). On by default; {@code
   * -Dchangelake.writer.flush-off-thread=false} in the worker's JVM options is the escape hatch
   * back to flushing every table on the task thread (the consumption then pauses for the flush at
   * each commit round). None of the failures that kept it off was its own: a row inserted in a
   * truncate's millisecond lost by the truncate's keep filter (fixed in the sink), a commit-count
   * ledger read while a commit landed (the test's race, awaited since), and the benchmark's latency
   * probe at 100 tables counting committed rows as never committed because its watcher, reading
   * every snapshot whole, fell behind the more frequent snapshots (it reads each snapshot's delta
   * since; {@code ManyTablesCommitRoundsTest} shows the sink commits every row).
   */
  static final boolean GENERATIONS_BY_DEFAULT =
      !"false".equalsIgnoreCase(System.getProperty("changelake.writer.flush-off-thread", "true"));

  private static volatile boolean generations = GENERATIONS_BY_DEFAULT;

  /**
   * Turns the two-generation seal on or off for writers opened from now on (tests); returns whether
   * it was on.
   */
  static boolean useGenerations(boolean on) {
    boolean was = generations;
    generations = on;
    return was;
  }

  private static final Logger LOG = LoggerFactory.getLogger(PooledTableWriter.class);
  // a commit whose identifiers another instance took meanwhile is renumbered and tried again
  private static final int COMMIT_ATTEMPTS = 3;

  private final Identifier identifier;
  private final String commitUser;
  private final IOManager ioManager;
  private final SharedMemoryPool memory;
  private final CommitFence fence;

  private FileStoreTable table;
  // the generation taking rows
  private TableWriteImpl<?> write;
  // a table ordered by a sequence.field has a second generation: the one sealed last, flushed and
  // committed on the committer thread while `write` takes rows (see seal); null until then
  private TableWriteImpl<?> other;
  // the table orders a key's versions by a field of the rows, not by Paimon's sequence numbers
  private boolean flushOffThread;
  // bytes of commits a lookup made, which no caller saw: reported with the next commit's result
  private long unreportedBytes;
  private TableCommitImpl commit;
  private long nextIdentifier;
  private final List<ManifestCommittable> pending = new ArrayList<>();
  private final List<SourceProgress> pendingOffsets = new ArrayList<>();
  private long rowsSinceCommit;
  // a truncate whose commit failed: retried, alone and first, by the next commit or truncate
  private ManifestCommittable pendingTruncate;
  private SourceProgress pendingTruncateOffsets;
  // lookups must see this writer's uncommitted rows: the keys (and, for deduplicate tables, the
  // newest versions) written since the last commit, tracked from the first lookup on (tables never
  // looked up pay nothing); null until then
  private BufferedVersions buffered;
  // the versions the generation in flight wrote, answering lookups of its keys until it landed
  private BufferedVersions sealedBuffered;
  private final long bufferedVersionsCapBytes;
  private KeyLookup lookup;
  private volatile long lastUsedNanos = System.nanoTime();
  // set by the thread that lands a sealed commit, read by the writer's thread
  private volatile RuntimeException failure;
  // the sealed commit being landed on another thread (see seal); null or done when none is
  private volatile CompletableFuture<CommitResult> landing;
  // the table's EARLIEST snapshot hint was seen or written by this writer
  private boolean earliestHintPresent;
  // this writer marked its user open in the offset copy
  private boolean markedOpen;

  /**
   * What every writer of one pool shares: the commit user, the spill directory's I/O manager, the
   * shared write buffer, the pool's fence and the heap cap of the versions kept for lookups.
   */
  record Shared(
      String commitUser,
      IOManager ioManager,
      SharedMemoryPool memory,
      CommitFence fence,
      long bufferedVersionsCapBytes) {}

  PooledTableWriter(Identifier identifier, FileStoreTable table, Shared shared) {
    this.identifier = identifier;
    this.bufferedVersionsCapBytes = shared.bufferedVersionsCapBytes();
    this.commitUser = shared.commitUser();
    this.ioManager = shared.ioManager();
    this.memory = shared.memory();
    this.fence = shared.fence();
    open(table);
  }

  private void open(FileStoreTable latest) {
    boolean appendOnly =
        latest.primaryKeys().isEmpty() && latest.bucketMode() == BucketMode.BUCKET_UNAWARE;
    if (latest.bucketMode() != BucketMode.HASH_FIXED && !appendOnly) {
      throw new LakeDataException(
          "Table "
              + identifier.getFullName()
              + " uses bucket mode "
              + latest.bucketMode()
              + "; the writer supports fixed buckets (and bucket-unaware append-only tables) only:"
              + " create the table with 'bucket' >= 1",
          identifier.getFullName(),
          "bucket",
          null);
    }
    table = latest.copy(ingestOptions(latest));
    write = newGeneration();
    other = null;
    // a second writer restarts its sequence numbers from the committed files, below those of the
    // generation in flight: safe only where a field of the rows orders a key's versions
    flushOffThread =
        generations
            && !table.primaryKeys().isEmpty()
            && table.options().containsKey(CoreOptions.SEQUENCE_FIELD.key());
    commit = table.newCommit(commitUser);
    lookup = null;
    sealedBuffered = null;
    // kept versions have the old row type; callers commit before reopening, so nothing is lost
    if (buffered != null) {
      buffered = newBufferedVersions();
    }
    // read before the user's newest: every snapshot of the user up to it is found below
    Long tableLatest = table.snapshotManager().latestSnapshotId();
    // identifiers must keep growing across restarts: a stale one is silently dropped as committed
    Optional<Snapshot> latestOfUser = table.snapshotManager().latestSnapshotOfUser(commitUser);
    long afterLatest = latestOfUser.map(snapshot -> snapshot.commitIdentifier() + 1).orElse(1L);
    nextIdentifier = Math.max(nextIdentifier, afterLatest);
    if (!markedOpen) {
      // before anything is committed: readers of the offsets then read only the snapshots a copy
      // may lack (see CommittedOffsets); this also copies the user's newest snapshot when a crash
      // between a commit and its copy left the copy without it
      new OffsetFallbackStore(table)
          .markOpen(commitUser, tableLatest == null ? 0 : tableLatest, latestOfUser);
      markedOpen = true;
    }
  }

  /**
   * The page size, in bytes, of the Parquet files ingest writers write when the table sets none
   * ({@code parquet.page.size}). Parquet buffers each file's compressed pages in an array allocated
   * at the page size when the file is opened; at Parquet's default of 1 MiB that array is a
   * humongous object for G1 on the heaps Kafka Connect workers usually run (regions of 1 MiB up to
   * a 2 GiB heap, humongous from half a region), and a commit round opens one per table and bucket:
   * 400 of them per round at 100 tables. At 256 KiB the array is an ordinary one. An ingest
   * writer's files hold one round's rows each, mostly well under a page, and compaction rewrites
   * them into the table's own page size. Measured (issue 14, 100 tables in one task, 2 pairs):
   * whole-JVM CPU per event 87.6 / 87.9 → 74.1 / 73.3 µs at a 1 s commit interval, 55.1 / 55.6 →
   * 49.5 / 46.1 µs at 10 s.
   */
  private static final int INGEST_PARQUET_PAGE_SIZE = 256 * 1024;

  /** Parquet's own key, which Paimon passes to its Parquet writers from the table's options. */
  private static final String PARQUET_PAGE_SIZE = "parquet.page.size";

  /**
   * The options ingest writers write {@code latest} with: write-only, as several tasks write the
   * same buckets and two compacting writers fail each other's commits ("File deletion conflicts");
   * and small Parquet pages unless the table sets its own ({@link #INGEST_PARQUET_PAGE_SIZE}).
   */
  private static Map<String, String> ingestOptions(FileStoreTable latest) {
    Map<String, String> options = new HashMap<>();
    options.put(CoreOptions.WRITE_ONLY.key(), "true");
    if (!latest.options().containsKey(PARQUET_PAGE_SIZE)) {
      options.put(PARQUET_PAGE_SIZE, String.valueOf(INGEST_PARQUET_PAGE_SIZE));
    }
    return options;
  }

  private TableWriteImpl<?> newGeneration() {
    TableWriteImpl<?> generation = table.newWrite(commitUser).withIOManager(ioManager);
    generation.withMemoryPoolFactory(memory.registering(generation));
    return generation;
  }

  @Override
  public FileStoreTable table() {
    return table;
  }

  @Override
  public void write(InternalRow row) {
    checkUsable();
    lastUsedNanos = System.nanoTime();
    try {
      write.write(row);
      rowsSinceCommit++;
      if (buffered != null) {
        buffered.written(lookup().key(row), row);
      }
    } catch (Exception e) {
      throw fail("Writing a " + row.getRowKind().shortString() + " row", e);
    }
  }

  @Override
  public CommitResult commit(SourceProgress offsets) {
    return seal(offsets).land();
  }

  @Override
  public SealedCommit seal(SourceProgress offsets) {
    checkUsable();
    // the sealed commit before this one must have landed: pending is the committer's meanwhile
    awaitLanded();
    lastUsedNanos = System.nanoTime();
    // rows written after a truncate must land after it
    commitPendingTruncate();
    ensureEarliestHint();
    long rows = rowsSinceCommit;
    long id = nextIdentifier++;
    long carriedBytes = unreportedBytes;
    unreportedBytes = 0;
    rowsSinceCommit = 0;
    if (flushOffThread && rows > 0 && memory.halfFree()) {
      return sealGeneration(offsets, id, rows, carriedBytes);
    }
    List<CommitMessage> messages = prepare(write, id);
    // rows written from now on are tracked afresh; a lookup of a sealed key waits for the landing
    clearBuffered();
    boolean hasFiles = addPending(id, messages, offsets);
    long bytes = carriedBytes + DataFileBytes.added(messages);
    if (pending.isEmpty()) {
      return SealedCommit.done(new CommitResult(identifier, id, OptionalLong.empty(), rows, bytes));
    }
    return landing(() -> land(id, hasFiles, rows, bytes));
  }

  /**
   * Hands the generation taking rows to the sealed commit, which flushes it (Paimon's {@code
   * prepareCommit}: sort and Parquet) and commits it on the thread that lands it, while the other
   * generation takes the rows from now on. Both share the pool's write buffer: the sealed one keeps
   * its pages until its flush returns them and is never preempted meanwhile, so the new one may
   * have to flush early (smaller files) when the buffer runs out, never exceed it.
   */
  private SealedCommit sealGeneration(SourceProgress offsets, long id, long rows, long carried) {
    TableWriteImpl<?> sealed = write;
    memory.suspend(sealed);
    write = other != null ? other : newGeneration();
    other = sealed;
    sealedBuffered = buffered;
    if (buffered != null) {
      buffered = newBufferedVersions();
    }
    return new Landing(
        () -> memory.flushOffThread(sealed, () -> prepare(sealed, id)),
        messages -> {
          boolean hasFiles = addPending(id, messages, offsets);
          return land(id, hasFiles, rows, carried + DataFileBytes.added(messages));
        });
  }

  /** Flushes {@code generation} into files for commit {@code id}; a failure breaks the writer. */
  private List<CommitMessage> prepare(TableWriteImpl<?> generation, long id) {
    try {
      return generation.prepareCommit(false, id);
    } catch (Exception e) {
      // the generation's rows are gone: nothing after them may be committed
      throw fail("Flushing the rows of commit " + id, e);
    }
  }

  /** Queues commit {@code id}'s files with {@code offsets}; false when it wrote none. */
  private boolean addPending(long id, List<CommitMessage> messages, SourceProgress offsets) {
    boolean hasFiles =
        messages.stream().anyMatch(message -> !((CommitMessageImpl) message).isEmpty());
    if (hasFiles) {
      ManifestCommittable committable = new ManifestCommittable(id);
      messages.forEach(committable::addFileCommittable);
      OffsetProperties.encode(offsets).forEach(committable::addProperty);
      fence.properties().forEach(committable::addProperty);
      pending.add(committable);
      pendingOffsets.add(offsets);
    }
    return hasFiles;
  }

  /** A sealed commit that lands with {@code land}, which the writer's next commit waits for. */
  private SealedCommit landing(Supplier<CommitResult> land) {
    return new Landing(null, flushedOnTheTaskThread -> land.get());
  }

  /**
   * A sealed commit in flight: its flush (when the seal left one) runs once, by {@link #flush} or
   * else first thing in {@link #land}; either one failing fails the landing the writer's next
   * commit waits for, so it never waits for a landing that will not come.
   */
  private final class Landing implements SealedCommit {
    private final CompletableFuture<CommitResult> landed = new CompletableFuture<>();
    private final Function<List<CommitMessage>, CommitResult> land;
    // null once run (or when there was none)
    private Supplier<List<CommitMessage>> flush;
    private List<CommitMessage> flushed;

    Landing(Supplier<List<CommitMessage>> flush, Function<List<CommitMessage>, CommitResult> land) {
      this.flush = flush;
      this.land = land;
      landing = landed;
    }

    @Override
    public boolean flushNeedsOnlyCpu() {
      return flush != null && !table.fileIO().isObjectStore();
    }

    @Override
    public void flush() {
      Supplier<List<CommitMessage>> pendingFlush = flush;
      if (pendingFlush == null) {
        return;
      }
      flush = null;
      flushed = orFailLanding(pendingFlush);
    }

    @Override
    public CommitResult land() {
      flush();
      if (landed.isDone()) {
        return landed.join(); // its flush had failed: that failure again
      }
      CommitResult result = orFailLanding(() -> land.apply(flushed));
      landed.complete(result);
      return result;
    }

    private <T> T orFailLanding(Supplier<T> step) {
      try {
        return step.get();
      } catch (RuntimeException | Error e) {
        landed.completeExceptionally(e);
        throw e;
      }
    }
  }

  /**
   * Waits until the sealed commit in flight, if any, has landed or failed. Its outcome is the
   * business of whoever landed it; after a failure its files are still pending and the next commit
   * retries them, as after a failed {@link #commit}.
   */
  private void awaitLanded() {
    CompletableFuture<CommitResult> inFlight = landing;
    if (inFlight == null) {
      return;
    }
    try {
      inFlight.join();
    } catch (CompletionException | CancellationException e) {
      LOG.debug("The sealed commit of {} failed; the next commit retries it", identifier, e);
    }
    landing = null;
    sealedBuffered = null;
  }

  private boolean landingInFlight() {
    CompletableFuture<CommitResult> inFlight = landing;
    return inFlight != null && !inFlight.isDone();
  }

  /** The second half of a commit: makes the pending committables snapshots. */
  private CommitResult land(long id, boolean hasFiles, long rows, long bytes) {
    long committedId = id;
    OptionalLong snapshotId = OptionalLong.empty();
    for (int attempt = 1; ; attempt++) {
      guardAgainstOtherInstances(pending, pendingOffsets);
      if (pending.isEmpty()) {
        break; // everything had landed in an earlier attempt
      }
      // renumbering keeps the order: the newest pending committable holds this commit's files
      long newestId = hasFiles ? pending.get(pending.size() - 1).identifier() : -1;
      if (hasFiles) {
        committedId = newestId;
      }
      try {
        commit.filterAndCommitMultiple(pending, checksAppendedFiles(hasFiles, attempt));
      } catch (RuntimeException e) {
        throw LakeException.wrap(
            describeCommit(committedId)
                + " failed; the written files stay pending and the next commit retries them: "
                + e.getMessage(),
            e,
            CommitConflictException::new);
      }
      OptionalLong newest = hasFiles ? snapshotOf(newestId) : OptionalLong.empty();
      if (newest.isPresent()) {
        snapshotId = newest;
      }
      // what landed leaves pending; what is left Paimon dropped because another instance took
      // its identifier between the guard and the commit: the guard renumbers it next time
      recordFallback(newestId, newest);
      if (pending.isEmpty()) {
        break;
      }
      if (attempt >= COMMIT_ATTEMPTS) {
        throw fail(
            new BrokenWriterException(
                describeCommit(committedId)
                    + " was dropped by Paimon "
                    + attempt
                    + " times: another writer instance ("
                    + describeNewestOfUser()
                    + ") took its commit identifiers each time. "
                    + sharedUserAdvice()));
      }
    }
    return new CommitResult(identifier, committedId, snapshotId, rows, bytes);
  }

  /**
   * Whether Paimon's conflict check reads the table's file entries before committing the pending
   * files. The files of this commit's first attempt were just written by a writer that never
   * compacts: new level-0 files delete nothing and cannot conflict. Paimon's own streaming
   * committer (Flink's {@code StoreCommitter}) commits them without the check and checks only
   * committables restored from older state; here, likewise, only a retry (a commit that failed
   * before, or was renumbered past another instance) is checked. The check reads every manifest of
   * the table's changed partitions through Paimon's JVM-wide manifest-read pool: at 100 tables
   * committed every second it was the committer threads' longest wait (see docs/benchmarks.md,
   * issue 14).
   */
  private boolean checksAppendedFiles(boolean hasFiles, int attempt) {
    return !(hasFiles && attempt == 1 && pending.size() == 1);
  }

  /**
   * Before committing {@code committables}: stops when a newer instance commits under this commit
   * user; when an older one committed after this one started, moves the committables past its
   * identifiers (Paimon would drop them as already committed) and the older one is fenced by them.
   * Committables of this instance that had landed already are taken out (their offsets recorded).
   */
  private void guardAgainstOtherInstances(
      List<ManifestCommittable> committables, List<SourceProgress> offsets) {
    CommitFence.Verdict verdict = fence.judge(newestOfUser());
    if (verdict instanceof CommitFence.Verdict.Fenced fenced) {
      throw fenced(fenced.newest());
    }
    if (!(verdict instanceof CommitFence.Verdict.OlderInstanceActive older)) {
      return;
    }
    long taken = older.newest().commitIdentifier();
    if (committables.stream().noneMatch(c -> c.identifier() <= taken)) {
      return; // this writer's identifiers are past the older instance's already
    }
    LOG.warn(
        "Table {}: {} committed snapshot {} (commit identifier {}) under commit user '{}'"
            + " after this writer ({}) started; this writer's commits move past it, and the other"
            + " instance is fenced by them. {}",
        identifier.getFullName(),
        CommitFence.describeWriterOf(older.newest()),
        older.newest().id(),
        taken,
        commitUser,
        fence.describe(),
        sharedUserAdvice());
    // past the older instance's next identifiers, not only its newest: renumbered to taken + 1,
    // an older instance committing as often takes that identifier first, Paimon drops this
    // writer's commit as already committed, and three such races in a row failed the newer
    // writer instead of the older (DuplicateWriterTest, loaded machine). Past the leap, the older
    // instance's next commit is the one Paimon drops, and its next guard finds this writer's
    // snapshot and fences it.
    nextIdentifier = Math.max(nextIdentifier, taken + 1 + IDENTIFIER_LEAP);
    for (int i = 0; i < committables.size(); i++) {
      ManifestCommittable committable = committables.get(i);
      OptionalLong landed = snapshotOf(committable.identifier());
      if (landed.isPresent()) {
        new OffsetFallbackStore(table).record(commitUser, landed.getAsLong(), offsets.get(i));
        committables.remove(i);
        offsets.remove(i);
        i--;
      } else {
        committables.set(i, renumbered(committable, nextIdentifier++));
      }
    }
  }

  private String describeCommit(long id) {
    return "Commit " + id + " of table " + identifier.getFullName() + " by '" + commitUser + "'";
  }

  private static ManifestCommittable renumbered(ManifestCommittable committable, long id) {
    ManifestCommittable copy = new ManifestCommittable(id, committable.watermark());
    committable.fileCommittables().forEach(copy::addFileCommittable);
    committable.properties().forEach(copy::addProperty);
    return copy;
  }

  /** The newest snapshot of this commit user, whichever instance wrote it; null when none. */
  private Snapshot newestOfUser() {
    Snapshot tableLatest = table.snapshotManager().latestSnapshot();
    if (tableLatest == null || tableLatest.commitUser().equals(commitUser)) {
      return tableLatest;
    }
    return table.snapshotManager().latestSnapshotOfUser(commitUser).orElse(null);
  }

  private String describeNewestOfUser() {
    Snapshot newest = newestOfUser();
    return newest == null ? "unknown" : CommitFence.describeWriterOf(newest);
  }

  private WriterFencedException fenced(Snapshot newer) {
    WriterFencedException fenced =
        new WriterFencedException(
            "Table "
                + identifier.getFullName()
                + ": "
                + CommitFence.describeWriterOf(newer)
                + " committed snapshot "
                + newer.id()
                + " under the commit user '"
                + commitUser
                + "' that this writer ("
                + fence.describe()
                + ") uses, and it started later: this writer stops so the newer one wins. Its"
                + " rows not committed yet are not in the table; they are re-read from the"
                + " committed offsets by whichever task owns their partitions. "
                + sharedUserAdvice());
    failure = fenced;
    return fenced;
  }

  private static String sharedUserAdvice() {
    return "Two live writers share a commit user when a task is still running after its shutdown"
        + " timeout (a zombie), two Connect clusters write to one warehouse, or a connector was"
        + " re-created under the same name while the old one still runs: stop the other one, or"
        + " give connectors writing the same warehouse different names.";
  }

  /**
   * Paimon writes the EARLIEST snapshot hint only when it expires snapshots. Until then each
   * look-up of the earliest snapshot lists the snapshot directory (on object stores a LIST
   * request), and every commit does two (Paimon's check for already committed identifiers and its
   * writer clean-up check). Writing the hint once turns them into a read. An out-of-date hint is
   * harmless: snapshots are only removed from the low end, so it names a deleted snapshot and
   * Paimon falls back to listing.
   */
  private void ensureEarliestHint() {
    if (earliestHintPresent) {
      return;
    }
    SnapshotManager snapshots = table.snapshotManager();
    try {
      if (!table.fileIO().exists(new Path(snapshots.snapshotDirectory(), HintFileUtils.EARLIEST))) {
        Long earliest = snapshots.earliestSnapshotId();
        if (earliest == null) {
          return; // no snapshot yet: look again at the next commit
        }
        snapshots.commitEarliestHint(earliest);
      }
    } catch (IOException e) {
      throw new LakeUnavailableException(
          "Writing the earliest-snapshot hint of table "
              + identifier.getFullName()
              + " failed before commit "
              + nextIdentifier
              + "; the buffered rows stay and the next commit retries: "
              + e.getMessage(),
          e);
    }
    earliestHintPresent = true;
  }

  /**
   * Keeps the offset copy that outlives snapshot expiry in step with the committed snapshots. The
   * snapshot of {@code newestId}, just looked up, is not looked up again: each look-up reads
   * snapshot files (on object stores, one request each).
   */
  private void recordFallback(long newestId, OptionalLong newestSnapshot) {
    OffsetFallbackStore store = new OffsetFallbackStore(table);
    for (int i = 0; i < pending.size(); i++) {
      long committed = pending.get(i).identifier();
      OptionalLong snapshotId = committed == newestId ? newestSnapshot : snapshotOf(committed);
      if (snapshotId.isPresent()) {
        store.record(commitUser, snapshotId.getAsLong(), pendingOffsets.get(i));
        pending.remove(i);
        pendingOffsets.remove(i);
        i--;
      }
    }
  }

  private OptionalLong snapshotOf(long commitIdentifier) {
    // right after a commit the table's newest snapshot is nearly always this one; reading it costs
    // the LATEST hint and one snapshot file, where latestSnapshotOfUser first finds the earliest
    // snapshot, which lists the snapshot directory until snapshots have been expired once
    Snapshot tableLatest = table.snapshotManager().latestSnapshot();
    if (tableLatest != null
        && tableLatest.commitUser().equals(commitUser)
        && tableLatest.commitIdentifier() == commitIdentifier
        && fence.wrote(tableLatest)) {
      return OptionalLong.of(tableLatest.id());
    }
    Optional<Snapshot> latest = table.snapshotManager().latestSnapshotOfUser(commitUser);
    if (latest.isPresent()
        && latest.get().commitIdentifier() == commitIdentifier
        && fence.wrote(latest.get())) {
      return OptionalLong.of(latest.get().id());
    }
    // an older committable of the same retry: walk back (rare, only after a failed commit)
    Long earliest = table.snapshotManager().earliestSnapshotId();
    Long newest = table.snapshotManager().latestSnapshotId();
    if (earliest == null || newest == null) {
      return OptionalLong.empty();
    }
    for (long sid = newest; sid >= earliest; sid--) {
      if (!table.snapshotManager().snapshotExists(sid)) {
        continue;
      }
      Snapshot snapshot = table.snapshotManager().snapshot(sid);
      if (snapshot.commitUser().equals(commitUser)
          && snapshot.commitIdentifier() == commitIdentifier
          && fence.wrote(snapshot)) {
        return OptionalLong.of(sid);
      }
    }
    return OptionalLong.empty();
  }

  @Override
  public CommitResult truncate(
      SourceProgress before, SourceProgress after, Predicate<InternalRow> keep) {
    checkUsable();
    lastUsedNanos = System.nanoTime();
    long rows = rowsSinceCommit;
    // rows buffered before the truncate may follow it in the source (consumed earlier from another
    // partition): commit them so the overwrite below sees and filters them like every stored row
    long flushedBytes = commit(before).bytesWritten();
    long id = nextIdentifier++;
    List<CommitMessage> kept;
    try {
      long copied = copyRows(keep);
      kept = write.prepareCommit(false, id);
      if (copied == 0) {
        commit.abort(kept);
        kept = List.of();
      }
    } catch (Exception e) {
      throw fail("Writing the rows that survive the truncate", e);
    }
    rowsSinceCommit = 0;
    clearBuffered();
    ManifestCommittable truncation = new ManifestCommittable(id);
    kept.forEach(truncation::addFileCommittable);
    OffsetProperties.encode(after).forEach(truncation::addProperty);
    TruncateMarker.property().forEach(truncation::addProperty);
    fence.properties().forEach(truncation::addProperty);
    pendingTruncate = truncation;
    pendingTruncateOffsets = after;
    OptionalLong snapshotId = commitPendingTruncate();
    // the bucket writers remember the files they wrote; start afresh on the emptied table
    closeQuietlyForReopen();
    open(table);
    return new CommitResult(
        identifier, id, snapshotId, rows, flushedBytes + DataFileBytes.added(kept));
  }

  /**
   * Writes the table's current rows that {@code keep} accepts again, as inserts; returns how many.
   */
  private long copyRows(Predicate<InternalRow> keep) throws Exception {
    ReadBuilder read = table.newReadBuilder();
    InternalRowSerializer serializer = new InternalRowSerializer(table.rowType());
    long[] copied = {0};
    TableRows.forEach(
        read,
        row -> {
          if (keep.test(row)) {
            InternalRow copy = serializer.copy(row);
            copy.setRowKind(RowKind.INSERT);
            write.write(copy);
            copied[0]++;
          }
        });
    return copied[0];
  }

  /**
   * Commits the pending truncate as an overwrite of the whole table with nothing. It goes through
   * {@code filterAndCommitMultiple} like every commit: when a failed attempt had in fact landed,
   * this commit user's newer identifier filters the retry out, so a retry never deletes rows
   * written after the truncate.
   */
  private OptionalLong commitPendingTruncate() {
    if (pendingTruncate == null) {
      return OptionalLong.empty();
    }
    List<ManifestCommittable> truncation = new ArrayList<>(List.of(pendingTruncate));
    List<SourceProgress> truncationOffsets = new ArrayList<>(List.of(pendingTruncateOffsets));
    guardAgainstOtherInstances(truncation, truncationOffsets);
    if (truncation.isEmpty()) {
      // it had landed in an earlier attempt (its offsets were recorded by the guard)
      pendingTruncate = null;
      pendingTruncateOffsets = null;
      return OptionalLong.empty();
    }
    pendingTruncate = truncation.get(0);
    long id = pendingTruncate.identifier();
    // with dynamic partition overwrite (Paimon's default) an overwrite without rows deletes nothing
    FileStoreTable whole =
        table.copy(Map.of(CoreOptions.DYNAMIC_PARTITION_OVERWRITE.key(), "false"));
    String truncating =
        "Truncating table " + identifier.getFullName() + " (commit " + id + " by '" + commitUser;
    try (TableCommitImpl overwrite = whole.newCommit(commitUser).withOverwrite(Map.of())) {
      overwrite.filterAndCommitMultiple(List.of(pendingTruncate));
    } catch (Exception e) {
      throw LakeException.wrap(
          truncating
              + "') failed; the truncate stays pending and the next commit or truncate retries"
              + " it: "
              + e.getMessage(),
          e,
          CommitConflictException::new);
    }
    OptionalLong snapshotId = snapshotOf(id);
    if (snapshotId.isEmpty()) {
      throw new CommitConflictException(
          truncating
              + "') was dropped by Paimon: another writer instance ("
              + describeNewestOfUser()
              + ") took its commit identifier. The truncate stays pending and the next commit or"
              + " truncate retries it past that instance's commits. "
              + sharedUserAdvice(),
          null);
    }
    try {
      new OffsetFallbackStore(table)
          .record(commitUser, snapshotId.getAsLong(), pendingTruncateOffsets);
    } catch (RuntimeException e) {
      throw new LakeUnavailableException(
          "Truncating table "
              + identifier.getFullName()
              + " committed snapshot "
              + snapshotId.getAsLong()
              + ", but recording its offsets outside the snapshot failed; the truncate stays"
              + " pending and the next commit or truncate retries it (Paimon skips the"
              + " snapshot that landed): "
              + e.getMessage(),
          e);
    }
    pendingTruncate = null;
    pendingTruncateOffsets = null;
    return snapshotId;
  }

  @Override
  public Optional<InternalRow> lookup(InternalRow keyRow, SourceProgress offsets) {
    checkUsable();
    lastUsedNanos = System.nanoTime();
    KeyLookup keys = lookup();
    if (landingInFlight() && buffered != null) {
      BinaryRow key = keys.key(keyRow);
      BufferedVersions.Known known = buffered.find(key);
      if (known instanceof BufferedVersions.Latest latest) {
        // written since the seal: its newest version, whatever the sealed commit holds
        return latest.row();
      }
      if (known instanceof BufferedVersions.NotWritten
          && sealedBuffered != null
          && sealedBuffered.find(key) instanceof BufferedVersions.Latest sealedLatest) {
        // written last by the generation in flight: the version its commit stores
        return sealedLatest.row();
      }
    }
    // the key may be in the sealed files: they must have landed for the read to see them
    awaitLanded();
    boolean mayBeUncommitted;
    if (buffered == null) {
      // keys written before the first lookup are unknown
      mayBeUncommitted = rowsSinceCommit > 0;
      buffered = newBufferedVersions();
    } else {
      BufferedVersions.Known known = buffered.find(keys.key(keyRow));
      if (known instanceof BufferedVersions.Latest latest) {
        // the version the next commit stores: no commit, no read (a hot key would otherwise
        // cost a snapshot per record)
        return latest.row();
      }
      mayBeUncommitted = known instanceof BufferedVersions.WrittenNotKept;
    }
    if (mayBeUncommitted || !pending.isEmpty() || pendingTruncate != null) {
      // nobody sees this commit's result: its bytes go with the next one the caller gets
      unreportedBytes = commit(offsets).bytesWritten();
    }
    return keys.find(keyRow);
  }

  private BufferedVersions newBufferedVersions() {
    return new BufferedVersions(
        table.rowType(), BufferedVersions.newestVersionIsStored(table), bufferedVersionsCapBytes);
  }

  private void clearBuffered() {
    if (buffered != null) {
      buffered.clear();
    }
  }

  /** Bytes of row versions kept for lookups (on the heap, outside the shared write buffer). */
  long bufferedVersionBytes() {
    // not those of the generation in flight: what the next commit will hold
    return buffered == null ? 0 : buffered.bytes();
  }

  private KeyLookup lookup() {
    if (lookup == null) {
      lookup = new KeyLookup(table);
    }
    return lookup;
  }

  @Override
  public CommitResult reopen(SourceProgress offsets) {
    CommitResult result = commit(offsets);
    closeQuietlyForReopen();
    // with the latest schema's options too: an ALTER may have added a sequence group
    open(LakeTables.onLatestSchema(table));
    return result;
  }

  private void closeQuietlyForReopen() {
    try {
      closeResources();
    } catch (Exception e) {
      throw fail("Closing the writer before reopening it", e);
    }
  }

  @Override
  public boolean hasUncommittedRows() {
    return landingInFlight()
        || rowsSinceCommit > 0
        || !pending.isEmpty()
        || pendingTruncate != null;
  }

  long idleNanos(long now) {
    return now - lastUsedNanos;
  }

  long nextCommitIdentifier() {
    return nextIdentifier;
  }

  /** Closes without committing; buffered rows are dropped (the caller re-reads them from Kafka). */
  void close() throws Exception {
    // never under a commit landing on another thread
    awaitLanded();
    try {
      // nothing committed can be missing from the copy unless a commit is pending (it may have
      // landed) or the writer failed half-way
      if (markedOpen && pending.isEmpty() && pendingTruncate == null && failure == null) {
        new OffsetFallbackStore(table).markClosed(commitUser);
      }
    } finally {
      closeResources();
    }
  }

  private void closeResources() throws Exception {
    Exception first = null;
    for (TableWriteImpl<?> generation : other == null ? List.of(write) : List.of(write, other)) {
      memory.unregister(generation);
      first = closeKeepingFirstFailure(generation, first);
    }
    other = null;
    first = closeKeepingFirstFailure(commit, first);
    if (first != null) {
      throw first;
    }
  }

  /** Closes {@code resource}; returns the first failure so far, later ones suppressed in it. */
  private static Exception closeKeepingFirstFailure(AutoCloseable resource, Exception first) {
    try {
      resource.close();
    } catch (Exception e) {
      if (first == null) {
        return e;
      }
      first.addSuppressed(e);
    }
    return first;
  }

  private void checkUsable() {
    if (failure != null) {
      throw new BrokenWriterException(
          "The writer of table "
              + identifier.getFullName()
              + " failed earlier and holds no reliable data; close the pool and resume from the"
              + " committed offsets",
          failure);
    }
  }

  private RuntimeException fail(RuntimeException cause) {
    failure = cause;
    return cause;
  }

  private RuntimeException fail(String what, Exception cause) {
    failure =
        new BrokenWriterException(
            what + " for table " + identifier.getFullName() + " failed: " + cause.getMessage(),
            cause);
    return failure;
  }
}
