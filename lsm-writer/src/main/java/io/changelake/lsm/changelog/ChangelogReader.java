package io.changelake.lsm.changelog;

import io.changelake.lsm.commit.TruncateMarker;
import io.changelake.lsm.fault.LakeDataException;
import io.changelake.lsm.fault.LakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.OutOfRangeException;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamDataTableScan;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.table.source.snapshot.SnapshotReader;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.CloseableIterator;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Streams a table's changes, snapshot by snapshot, for a subset of its buckets. Registers a Paimon
 * consumer so snapshots it still needs are not expired, and fails with {@link
 * PositionExpiredException} — never an endless empty stream — when its position has expired.
 *
 * <p>Which changes a snapshot yields depends on the table's {@code changelog-producer}: {@code
 * input} gives what writers wrote, {@code lookup} gives {@code -U/+U} pairs with before images
 * (produced when the {@link io.changelake.lsm.compact.Compactor} compacts, since ingest writers are
 * write-only), {@code none} gives the rows of each new file as written (no before images).
 *
 * <p>A snapshot that truncated the table ({@link TruncateMarker}: Paimon's stream scan skips
 * overwrite snapshots, which carry no changelog) is read as a truncate followed by the rows the
 * snapshot holds, as a full state ({@link ChangeBatch#truncatePosition()}); of several readers
 * sharing a table's buckets only the one owning bucket 0 announces the truncate.
 *
 * <p>Positions are kept per bucket when the reader is given its buckets: they count the raw changes
 * of one bucket in one snapshot, in a fixed order (splits sorted by partition within the bucket),
 * so they stay valid whichever reader reads the bucket next: buckets can move between readers (a
 * new {@code tasks.max}, a new table) without a change lost or repeated. A reader of all buckets
 * (an empty set) counts over all of them together under {@link #ALL_BUCKETS}. A truncate belongs to
 * bucket {@link #TRUNCATE_BUCKET} (or {@link #ALL_BUCKETS}): its position is that bucket's.
 *
 * <p>The Paimon consumer ({@link #consumerId()}) records the oldest snapshot still needed: the
 * oldest checkpoint of a bucket with changes not yet checkpointed, or, when everything read was
 * checkpointed, the snapshot being read or the next one (so a reader whose buckets see no changes
 * does not hold back expiry). Apart from the first value a fresh reader registers (its start), a
 * consumer's snapshot is a floor for every bucket of its reader: all their changes before it are
 * durable downstream. On restore each bucket takes the later of its checkpoint and the reader's own
 * consumer.
 *
 * <p>Each snapshot is read with one schema, at least as new as every file it holds (see {@link
 * ReadSchema}): the reader moves to the table's latest schema when a snapshot holds files written
 * after the schema it reads with, so rows written before and after a widening or an added column
 * keep their values, and {@link ChangeBatch#rowType()} tells which schema a batch has. A value no
 * longer fitting its column fails with {@link UnreadableSnapshotException}. Not thread-safe.
 */
public final class ChangelogReader implements AutoCloseable {
  private static final Comparator<ReaderPosition> ORDER = ReaderPosition.ORDER;

  /** The bucket key of a reader that counts positions over all buckets together. */
  public static final int ALL_BUCKETS = -1;

  /**
   * The bucket a truncate's position belongs to in a reader of named buckets: the one owning it
   * announces the truncate (a table split over several readers is truncated once).
   */
  public static final int TRUNCATE_BUCKET = 0;

  private static final String BUCKETS_SUFFIX = "-buckets-";
  private static final Pattern BUCKET_LIST = Pattern.compile("\\d+(_\\d+)*");

  /**
   * A consumer file whose snapshot did not move is rewritten this often, so that Paimon's {@code
   * consumer.expiration-time} (measured from the file's last modification) only removes consumers
   * of readers that are gone, never of an idle one that runs.
   */
  private static final long CONSUMER_REFRESH_MS = Duration.ofMinutes(10).toMillis();

  private final FileStoreTable table;
  private final String consumerId;
  private final int maxBatchSize;
  private final boolean perBucket;
  private final Set<Integer> keys;

  /** Per bucket key, where a restored reader resumes: changes before it are skipped. */
  private final Map<Integer, ReaderPosition> restored;

  private final long startSnapshot;
  private final ReadBuilder readBuilder;
  private final StreamTableScan scan;
  private final ConsumerManager consumers;

  /**
   * Whether this reader announces truncates: one reader per table does, the one owning bucket 0 (or
   * all buckets), so a table split over several readers is not truncated once per reader.
   */
  private final boolean announcesTruncates;

  /** The schema the next plan is read with at least; moves forward, never back. */
  private ReadSchema schema;

  private PlanCursor cursor;

  /** Where the first plan began (its snapshot, full state or not), once planned. */
  private ReaderPosition firstPlanStart;

  /** Waits a truncate may have to make for readers of the table's other buckets. */
  private TruncateBarrier barrier = TruncateBarrier.NONE;

  /**
   * True while the scan's next plan is a full state: before the first plan of a scan that starts
   * with the full state or resumes inside one. Such a plan is never taken for a truncate.
   */
  private boolean nextPlanIsFullState;

  private final Map<Integer, ReaderPosition> lastEmitted = new HashMap<>();
  private final Map<Integer, ReaderPosition> lastCheckpointed = new HashMap<>();
  private long consumerSnapshot = -1;
  private long consumerWrittenAt;

  /**
   * A reader that resumes every bucket from the same position (or starts at {@code start}).
   *
   * @see #ChangelogReader(FileStoreTable, String, Set, StartPosition, Map, int)
   */
  public ChangelogReader(
      FileStoreTable table,
      String consumerId,
      Set<Integer> buckets,
      StartPosition start,
      Optional<ReaderPosition> restored,
      int maxBatchSize) {
    this(table, consumerId, buckets, start, everyKey(buckets, restored), maxBatchSize);
  }

  /**
   * @param table the table
   * @param consumerId Paimon consumer id base (stable per connector); the bucket set is appended
   *     ({@link #consumerIdFor})
   * @param buckets the buckets this reader owns; empty for all (positions then count over all
   *     buckets together, under {@link #ALL_BUCKETS})
   * @param start where to start when {@code restored} is empty
   * @param restored per bucket key ({@link #ALL_BUCKETS} for a reader of all buckets), the position
   *     to resume from; either empty or one for every key. The earliest decides where reading
   *     starts: when it is a full-state position, no bucket may be in the changes of that snapshot
   * @param maxBatchSize most changes per batch
   */
  public ChangelogReader(
      FileStoreTable table,
      String consumerId,
      Set<Integer> buckets,
      StartPosition start,
      Map<Integer, ReaderPosition> restored,
      int maxBatchSize) {
    if (maxBatchSize < 1) {
      throw new IllegalArgumentException("maxBatchSize must be at least 1, got " + maxBatchSize);
    }
    this.consumerId = consumerIdFor(consumerId, buckets);
    this.maxBatchSize = maxBatchSize;
    this.perBucket = !buckets.isEmpty();
    this.keys = perBucket ? Set.copyOf(buckets) : Set.of(ALL_BUCKETS);
    if (!restored.isEmpty() && !restored.keySet().equals(keys)) {
      throw new IllegalArgumentException(
          "Restored positions " + restored + " must cover exactly the bucket keys " + keys);
    }
    this.consumers =
        new ConsumerManager(table.fileIO(), table.location(), table.snapshotManager().branch());
    this.restored = laterOfCheckpointAndConsumer(restored);
    ReaderPosition resumeAt = this.restored.values().stream().min(ORDER).orElse(null);
    boolean resumeFull = resumeAt != null && startsInFullState(resumeAt.snapshotId());
    this.table = table.copy(scanOptions(table, start, resumeAt != null));
    Set<Integer> owned = Set.copyOf(buckets);
    this.announcesTruncates = owned.isEmpty() || owned.contains(TRUNCATE_BUCKET);
    this.readBuilder =
        this.table
            .newReadBuilder()
            .withBucketFilter(bucket -> owned.isEmpty() || owned.contains(bucket));
    // not this.table: a copy with scan options starting at a snapshot time-travels to that
    // snapshot's schema, and rows written since must not be read with an older one
    this.schema = new ReadSchema(table);
    this.scan = readBuilder.newStreamScan();
    if (resumeAt != null) {
      checkNotExpired(resumeAt.snapshotId(), "restored position " + this.restored);
      if (resumeFull) {
        // re-read the full state of that snapshot, then skip what was consumed
        ((StreamDataTableScan) scan).restore(resumeAt.snapshotId(), true);
      } else {
        scan.restore(resumeAt.snapshotId());
      }
      startSnapshot = resumeAt.snapshotId();
      this.restored.forEach(
          (key, position) -> {
            lastEmitted.put(key, position);
            lastCheckpointed.put(key, position);
          });
    } else {
      checkStart(start);
      startSnapshot = firstNeededSnapshot(start);
    }
    protect(startSnapshot);
    nextPlanIsFullState =
        resumeAt != null ? resumeFull : start instanceof StartPosition.FullThenChanges;
  }

  private static Map<Integer, ReaderPosition> everyKey(
      Set<Integer> buckets, Optional<ReaderPosition> restored) {
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    if (restored.isPresent()) {
      for (int key : buckets.isEmpty() ? Set.of(ALL_BUCKETS) : buckets) {
        positions.put(key, restored.get());
      }
    }
    return positions;
  }

  /** True when the earliest snapshot restored is read in its full state (and checks mixes). */
  private boolean startsInFullState(long snapshotId) {
    boolean full = false;
    boolean changes = false;
    for (ReaderPosition position : restored.values()) {
      if (position.snapshotId() == snapshotId) {
        full |= position.fullState();
        changes |= !position.fullState();
      }
    }
    if (full && changes) {
      throw new IllegalArgumentException(
          "Restored positions "
              + restored
              + " mix the full state of snapshot "
              + snapshotId
              + " with its changes; read such buckets with separate readers");
    }
    return full;
  }

  /**
   * Lets a truncate wait for the readers of the table's other buckets (see {@link
   * TruncateBarrier}); without one it never waits.
   */
  public void truncateBarrier(TruncateBarrier barrier) {
    this.barrier = Objects.requireNonNull(barrier);
  }

  /** The consumer id a reader registers for {@code buckets} (one per bucket set). */
  public static String consumerIdFor(String consumerId, Set<Integer> buckets) {
    if (buckets.isEmpty()) {
      return consumerId;
    }
    return consumerId
        + BUCKETS_SUFFIX
        + new TreeSet<>(buckets).stream().map(String::valueOf).collect(Collectors.joining("_"));
  }

  /**
   * The consumers readers registered on {@code table} under exactly {@code consumerId} (the base
   * given to {@link #consumerIdFor}): ids that only start with it, such as another connector's
   * {@code <consumerId>-eu}, are not among them.
   */
  public static List<RegisteredConsumer> consumers(FileStoreTable table, String consumerId) {
    ConsumerManager manager =
        new ConsumerManager(table.fileIO(), table.location(), table.snapshotManager().branch());
    List<RegisteredConsumer> found = new ArrayList<>();
    for (String id : manager.listAllIds()) {
      Optional<Set<Integer>> buckets = bucketsOf(consumerId, id);
      if (buckets.isPresent()) {
        Optional<Consumer> consumer;
        try {
          consumer = manager.consumer(id);
        } catch (java.io.UncheckedIOException e) {
          // caught while its reader rewrites it (seen empty): its floor is only unknown this time
          continue;
        }
        consumer.ifPresent(
            c -> found.add(new RegisteredConsumer(id, buckets.get(), c.nextSnapshot())));
      }
    }
    return found;
  }

  /** The bucket set encoded in {@code id} when it is a consumer id under {@code consumerId}. */
  static Optional<Set<Integer>> bucketsOf(String consumerId, String id) {
    if (id.equals(consumerId)) {
      return Optional.of(Set.of());
    }
    String prefix = consumerId + BUCKETS_SUFFIX;
    if (!id.startsWith(prefix) || !BUCKET_LIST.matcher(id.substring(prefix.length())).matches()) {
      return Optional.empty();
    }
    return Optional.of(
        Arrays.stream(id.substring(prefix.length()).split("_"))
            .map(Integer::valueOf)
            .collect(Collectors.toSet()));
  }

  /** Removes one Paimon consumer, so it no longer holds back snapshot expiry. */
  public static void dropConsumer(FileStoreTable table, String id) {
    new ConsumerManager(table.fileIO(), table.location(), table.snapshotManager().branch())
        .deleteConsumer(id);
  }

  /**
   * Removes every consumer registered under exactly {@code consumerId}, whatever its bucket set (a
   * deleted connector's, or one whose offsets were moved), so they no longer hold back snapshot
   * expiry.
   */
  public static void dropConsumers(FileStoreTable table, String consumerId) {
    for (RegisteredConsumer consumer : consumers(table, consumerId)) {
      dropConsumer(table, consumer.id());
    }
  }

  /** The Paimon consumer id this reader registers. */
  public String consumerId() {
    return consumerId;
  }

  /** The bucket keys positions are kept for: the buckets, or {@link #ALL_BUCKETS}. */
  public Set<Integer> bucketKeys() {
    return keys;
  }

  /** The bucket key a truncate's position belongs to in this reader. */
  public int truncateKey() {
    return perBucket ? TRUNCATE_BUCKET : ALL_BUCKETS;
  }

  /** The schema the reader reads with now (a later snapshot may move it forward). */
  public RowType rowType() {
    return schema.rowType();
  }

  /** The next batch, or empty when no new snapshot is committed yet. */
  public Optional<ChangeBatch> poll() {
    while (true) {
      if (cursor == null || cursor.exhausted()) {
        closeCursor();
        if (!nextPlan()) {
          return Optional.empty();
        }
      }
      ReaderPosition truncate = cursor.takeTruncate();
      List<ChangeRow> changes = new ArrayList<>();
      while (changes.size() < maxBatchSize && !cursor.exhausted()) {
        changes.add(cursor.nextChange());
      }
      if (changes.isEmpty() && truncate == null) {
        continue; // everything of this snapshot was consumed before a restore
      }
      if (truncate != null) {
        lastEmitted.put(truncateKey(), truncate);
      }
      for (ChangeRow change : changes) {
        lastEmitted.put(change.bucket(), change.position());
      }
      return Optional.of(
          new ChangeBatch(
              cursor.snapshotId,
              cursor.commitKind,
              cursor.schema.rowType(),
              changes,
              cursor.exhausted(),
              cursor.full,
              truncate));
    }
  }

  /**
   * Where the reader stands: the position of the next change to read (of the bucket it reads next),
   * or the start of the next snapshot to read.
   */
  public ReaderPosition position() {
    if (cursor != null && !cursor.exhausted()) {
      return cursor.position();
    }
    Long next = scan.checkpoint();
    return ReaderPosition.snapshotStart(next != null ? next : startSnapshot);
  }

  /** Records that everything before {@code position} is durable downstream, for every bucket. */
  public void checkpoint(ReaderPosition position) {
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    for (int key : keys) {
      positions.put(key, position);
    }
    checkpoint(positions);
  }

  /**
   * Records, per bucket key, that everything of that bucket before its position is durable
   * downstream. Buckets not in the map keep their last checkpoint.
   */
  public void checkpoint(Map<Integer, ReaderPosition> positions) {
    positions.forEach(
        (key, position) -> {
          ReaderPosition last = lastCheckpointed.get(key);
          if (last == null || ORDER.compare(position, last) > 0) {
            lastCheckpointed.put(key, position);
          }
        });
    protect(neededSnapshot());
  }

  /**
   * Where a new reader must resume every bucket so that it reads on just after {@code returned}
   * (per bucket key, the position after the last change or truncate passed on; buckets without one
   * passed on nothing yet): those positions, else the bucket's restored position, else the start of
   * this reader's first plan. Empty when nothing was passed on by a reader that was not restored
   * and planned nothing: a new one then starts from the start position again.
   */
  public Map<Integer, ReaderPosition> resumePositions(Map<Integer, ReaderPosition> returned) {
    if (returned.isEmpty() && restored.isEmpty() && firstPlanStart == null) {
      return Map.of();
    }
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    for (int key : keys) {
      ReaderPosition position = returned.get(key);
      ReaderPosition resume = restored.get(key);
      if (position == null) {
        position =
            resume != null
                ? resume
                : firstPlanStart != null
                    ? firstPlanStart
                    : ReaderPosition.snapshotStart(startSnapshot);
      } else if (resume != null) {
        position = ReaderPosition.later(position, resume);
      }
      positions.put(key, position);
    }
    return positions;
  }

  @Override
  public void close() {
    closeCursor();
  }

  private boolean nextPlan() {
    TableScan.Plan plan;
    Long next;
    Long truncated = null;
    boolean fullPlan = false;
    do {
      // a scan's first call may only find its starting snapshot and plan nothing: go on while
      // the scan advances
      Long before = scan.checkpoint();
      if (before != null && !nextPlanIsFullState && isTruncate(before)) {
        boolean announcing = announcesTruncate(before);
        if (!(announcing ? barrier.mayAnnounce(before) : barrier.mayFollow(before))) {
          // readers of the other buckets are not there yet: try again on the next poll
          protect(neededSnapshot());
          return false;
        }
        // Paimon's stream scan skips overwrite snapshots (they carry no changelog): read the
        // snapshot's full state instead, announced by the truncate, then go on after it
        ((StreamDataTableScan) scan).restore(before, true);
        truncated = before;
      }
      plan = planOrExpired();
      next = scan.checkpoint();
      Long stepped = truncated == null ? steppedOverTruncate(before, plan, next) : null;
      if (stepped != null) {
        // one plan call skips every snapshot it has nothing to scan in, overwrite snapshots too
        // (after a compaction snapshot, say): go back to the truncate and read it first
        scan.restore(stepped);
        continue;
      }
      if (nextPlanIsFullState && next != null) {
        // the scan found its snapshot: this plan is its full state, even an empty one
        fullPlan = true;
        nextPlanIsFullState = false;
      }
      if (truncated != null
          || fullPlan
          || !plan.splits().isEmpty()
          || Objects.equals(before, next)) {
        break;
      }
    } while (true);
    if (plan.splits().isEmpty() && truncated == null) {
      if (next != null) {
        checkNotExpired(next, "next snapshot " + next);
        protect(neededSnapshot());
      }
      return false;
    }
    boolean full = truncated != null || fullPlan;
    long snapshotId;
    if (truncated != null) {
      snapshotId = truncated;
    } else if (plan instanceof SnapshotReader.Plan snapshotPlan
        && snapshotPlan.snapshotId() != null) {
      snapshotId = snapshotPlan.snapshotId();
    } else {
      snapshotId = next - 1;
    }
    ReaderPosition start = new ReaderPosition(snapshotId, 0, full);
    if (firstPlanStart == null) {
      firstPlanStart = start;
    }
    schema = schema.covering(plan.splits());
    cursor =
        new PlanCursor(
            start,
            schema,
            sorted(plan.splits(), table.fullName()),
            next,
            truncated != null && announcesTruncate(truncated));
    protect(neededSnapshot());
    return true;
  }

  /**
   * Whether this reader publishes the truncate of snapshot {@code snapshotId}: it owns the
   * truncate's bucket, and that bucket was not restored past the truncate (published by an earlier
   * reader).
   */
  private boolean announcesTruncate(long snapshotId) {
    if (!announcesTruncates) {
      return false;
    }
    ReaderPosition resume = restored.get(truncateKey());
    return resume == null || ORDER.compare(resume, new ReaderPosition(snapshotId, 0, true)) < 0;
  }

  /**
   * The first truncate among the snapshots a plan call skipped between {@code before} and the
   * snapshot it planned (or the next one to read), or null.
   */
  private Long steppedOverTruncate(Long before, TableScan.Plan plan, Long next) {
    if (before == null || next == null || nextPlanIsFullState) {
      return null;
    }
    long upper =
        plan instanceof SnapshotReader.Plan planned && planned.snapshotId() != null
            ? planned.snapshotId() - 1
            : next - 1;
    for (long id = before + 1; id <= upper; id++) {
      if (isTruncate(id)) {
        return id;
      }
    }
    return null;
  }

  /** The first plan of a scan that starts with the full state is the full state. */
  private TableScan.Plan planOrExpired() {
    try {
      return scan.plan();
    } catch (OutOfRangeException e) {
      throw expired(e.getMessage());
    }
  }

  /**
   * The oldest snapshot a restart of this reader could need: the oldest checkpoint of a bucket with
   * changes emitted since; with none, the snapshot being read (or the next to read).
   */
  private long neededSnapshot() {
    long needed = Long.MAX_VALUE;
    for (Map.Entry<Integer, ReaderPosition> emitted : lastEmitted.entrySet()) {
      ReaderPosition checkpointed = lastCheckpointed.get(emitted.getKey());
      if (checkpointed == null) {
        needed = Math.min(needed, startSnapshot);
      } else if (ORDER.compare(checkpointed, emitted.getValue()) < 0) {
        needed = Math.min(needed, checkpointed.snapshotId());
      }
    }
    if (needed != Long.MAX_VALUE) {
      return needed;
    }
    if (cursor != null && !cursor.exhausted()) {
      return cursor.snapshotId;
    }
    Long next = scan.checkpoint();
    if (next != null) {
      return next;
    }
    return consumerSnapshot >= 0 ? consumerSnapshot : startSnapshot;
  }

  private void protect(long snapshotId) {
    long now = System.currentTimeMillis();
    if (snapshotId != consumerSnapshot || now - consumerWrittenAt >= CONSUMER_REFRESH_MS) {
      consumers.resetConsumer(consumerId, new Consumer(snapshotId));
      consumerSnapshot = snapshotId;
      consumerWrittenAt = now;
    }
  }

  private Map<Integer, ReaderPosition> laterOfCheckpointAndConsumer(
      Map<Integer, ReaderPosition> checkpoints) {
    Optional<Consumer> consumer =
        checkpoints.isEmpty() ? Optional.empty() : consumers.consumer(consumerId);
    if (consumer.isEmpty()) {
      return Map.copyOf(checkpoints);
    }
    ReaderPosition recorded = ReaderPosition.snapshotStart(consumer.get().nextSnapshot());
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    checkpoints.forEach(
        (key, position) -> positions.put(key, ReaderPosition.later(position, recorded)));
    return Map.copyOf(positions);
  }

  private static Map<String, String> scanOptions(
      FileStoreTable table, StartPosition start, boolean restoring) {
    Map<String, String> options = new HashMap<>();
    if (restoring) {
      options.put(CoreOptions.SCAN_MODE.key(), "latest");
      return options;
    }
    if (start instanceof StartPosition.FullThenChanges) {
      options.put(CoreOptions.SCAN_MODE.key(), "latest-full");
    } else if (start instanceof StartPosition.Latest) {
      options.put(CoreOptions.SCAN_MODE.key(), "latest");
    } else if (start instanceof StartPosition.FromSnapshot from) {
      options.put(CoreOptions.SCAN_MODE.key(), "from-snapshot");
      options.put(CoreOptions.SCAN_SNAPSHOT_ID.key(), Long.toString(from.snapshotId()));
    } else if (start instanceof StartPosition.FromTimestamp from) {
      options.put(CoreOptions.SCAN_MODE.key(), "from-timestamp");
      options.put(CoreOptions.SCAN_TIMESTAMP_MILLIS.key(), Long.toString(from.epochMillis()));
    }
    return options;
  }

  /** The oldest snapshot a fresh reader may still read, protected before its first plan. */
  private long firstNeededSnapshot(StartPosition start) {
    Long earliest = table.snapshotManager().earliestSnapshotId();
    Long latest = table.snapshotManager().latestSnapshotId();
    if (start instanceof StartPosition.FromSnapshot from) {
      return from.snapshotId();
    }
    if (start instanceof StartPosition.Latest) {
      return latest == null ? 1 : latest + 1;
    }
    if (start instanceof StartPosition.FullThenChanges) {
      return latest == null ? 1 : latest;
    }
    return earliest == null ? 1 : earliest;
  }

  private void checkStart(StartPosition start) {
    if (start instanceof StartPosition.FromSnapshot from) {
      checkNotExpired(from.snapshotId(), "start snapshot " + from.snapshotId());
    } else if (start instanceof StartPosition.FromTimestamp from) {
      Long earliest = table.snapshotManager().earliestSnapshotId();
      if (earliest != null && earliest > 1) {
        Snapshot oldest = table.snapshotManager().snapshot(earliest);
        if (oldest.timeMillis() > from.epochMillis()) {
          throw expired(
              "start timestamp "
                  + from.epochMillis()
                  + " is older than the oldest snapshot kept ("
                  + earliest
                  + ", committed at "
                  + oldest.timeMillis()
                  + "); changes in between have expired");
        }
      }
    }
  }

  private void checkNotExpired(long snapshotId, String what) {
    Long earliest = table.snapshotManager().earliestSnapshotId();
    Long latest = table.snapshotManager().latestSnapshotId();
    Long earliestChangelog = table.changelogManager().earliestLongLivedChangelogId();
    long oldestKept = earliest == null ? 1 : earliest;
    if (earliestChangelog != null) {
      oldestKept = Math.min(oldestKept, earliestChangelog);
    }
    if (earliest != null && snapshotId < oldestKept) {
      throw expired(
          what
              + " has expired: the oldest snapshot kept is "
              + oldestKept
              + " (latest "
              + latest
              + ")");
    }
    long newest = latest == null ? 0 : latest;
    if (snapshotId > newest + 1) {
      throw expired(
          what
              + " is ahead of the table, whose latest snapshot is "
              + latest
              + "; the table was probably dropped and recreated");
    }
  }

  private PositionExpiredException expired(String detail) {
    return new PositionExpiredException(
        "Changelog reader '"
            + consumerId
            + "' of table "
            + table.fullName()
            + ": "
            + detail
            + ". Changes may have been lost. To go on, reset the source's offsets for this table"
            + " (e.g. delete the connector's offsets or deploy it under a new name) and start from"
            + " the full state or the latest snapshot; to keep it from happening, keep snapshots"
            + " longer (snapshot.time-retained, snapshot.num-retained.min) or let the reader's"
            + " consumer protect them");
  }

  /**
   * Whether snapshot {@code snapshotId} exists and truncated the table ({@link TruncateMarker}).
   */
  private boolean isTruncate(long snapshotId) {
    SnapshotManager snapshots = table.snapshotManager();
    if (!snapshots.snapshotExists(snapshotId)) {
      return false; // not committed yet, or expired with its changelog kept: no overwrite
    }
    return TruncateMarker.isTruncate(snapshots.snapshot(snapshotId));
  }

  private String commitKind(long snapshotId) {
    try {
      return table.snapshotManager().snapshot(snapshotId).commitKind().name();
    } catch (RuntimeException e) {
      if (table.changelogManager().longLivedChangelogExists(snapshotId)) {
        return table.changelogManager().changelog(snapshotId).commitKind().name();
      }
      throw e;
    }
  }

  private static List<Split> sorted(List<Split> splits, String table) {
    List<Split> ordered = new ArrayList<>(splits);
    ordered.sort(
        (a, b) -> {
          SplitPlace x = SplitPlace.of(a, table);
          SplitPlace y = SplitPlace.of(b, table);
          int byBucket = Integer.compare(x.bucket(), y.bucket());
          return byBucket != 0
              ? byBucket
              : Arrays.compare(x.partition().toBytes(), y.partition().toBytes());
        });
    return ordered;
  }

  private void closeCursor() {
    if (cursor != null) {
      cursor.close();
      cursor = null;
    }
  }

  /**
   * Reads the changes of one plan in order, one change of lookahead for pairing updates. Counts the
   * changes of each bucket key and skips, per bucket, what a restored position says was published.
   */
  private final class PlanCursor {
    final long snapshotId;
    final boolean full;
    final String commitKind;
    final ReadSchema schema;
    private final List<Split> splits;
    private final Long nextSnapshot;
    // per bucket key, changes of this plan taken or skipped; a counter each rather than a boxed
    // Long re-put per row (one allocation per row beyond Long's cache)
    private final Map<Integer, long[]> consumed = new HashMap<>();
    private boolean truncatePending;
    private int splitIndex;
    private Split split;
    private CloseableIterator<InternalRow> rows;
    private int rowsKey = Integer.MIN_VALUE;
    private long skipLeft;
    private InternalRow lookahead;
    private int lookaheadKey;
    private int takenKey;

    /**
     * A cursor over the splits of the plan that begins at {@code start}; {@code truncate}: the plan
     * opens with a truncate this reader announces.
     */
    PlanCursor(
        ReaderPosition start,
        ReadSchema schema,
        List<Split> splits,
        Long nextSnapshot,
        boolean truncate) {
      this.snapshotId = start.snapshotId();
      this.full = start.fullState();
      this.commitKind = commitKind(snapshotId);
      this.schema = schema;
      this.splits = splits;
      this.nextSnapshot = nextSnapshot;
      this.truncatePending = truncate;
      advance();
    }

    /**
     * The position just after the truncate that starts this plan, once; null when it has none or
     * was taken. It is the truncate bucket's: with rows of that bucket after it, the full state's
     * first position (a restore there reads the rows again, not the truncate); without, the
     * position after the snapshot.
     */
    ReaderPosition takeTruncate() {
      if (!truncatePending) {
        return null;
      }
      truncatePending = false;
      int key = truncateKey();
      return lookahead != null && lookaheadKey == key && consumedOf(key) == 0
          ? new ReaderPosition(snapshotId, 0, true)
          : positionOf(key);
    }

    boolean exhausted() {
      return lookahead == null;
    }

    /** Where the bucket read next stands. */
    ReaderPosition position() {
      return positionOf(exhausted() ? truncateKey() : lookaheadKey);
    }

    /** Where bucket {@code key} stands: its next change, or the next snapshot once it has none. */
    ReaderPosition positionOf(int key) {
      if (lookahead == null || lookaheadKey != key) {
        return ReaderPosition.snapshotStart(nextSnapshot == null ? snapshotId + 1 : nextSnapshot);
      }
      return new ReaderPosition(snapshotId, consumedOf(key), full);
    }

    private long consumedOf(int key) {
      long[] count = consumed.get(key);
      return count == null ? 0 : count[0];
    }

    private void countConsumed(int key) {
      consumed.computeIfAbsent(key, k -> new long[1])[0]++;
    }

    ChangeRow nextChange() {
      InternalRow row = take();
      int key = takenKey;
      RowKind kind = row.getRowKind();
      return switch (kind) {
        case INSERT -> new ChangeRow(RowKind.INSERT, null, row, positionOf(key), key);
        case DELETE -> new ChangeRow(RowKind.DELETE, row, null, positionOf(key), key);
        case UPDATE_AFTER -> new ChangeRow(RowKind.UPDATE_AFTER, null, row, positionOf(key), key);
        case UPDATE_BEFORE -> {
          if (lookahead != null
              && lookaheadKey == key
              && lookahead.getRowKind() == RowKind.UPDATE_AFTER
              && schema.sameKey(row, lookahead)) {
            InternalRow after = take();
            yield new ChangeRow(RowKind.UPDATE_AFTER, row, after, positionOf(key), key);
          }
          yield new ChangeRow(RowKind.UPDATE_BEFORE, row, null, positionOf(key), key);
        }
      };
    }

    private InternalRow take() {
      InternalRow row = lookahead;
      takenKey = lookaheadKey;
      countConsumed(takenKey);
      advance();
      return row;
    }

    /** How many changes of {@code key} in this plan were published before a restore. */
    private long restoredSkip(int key) {
      ReaderPosition resume = restored.get(key);
      if (resume == null || resume.snapshotId() < snapshotId) {
        return 0;
      }
      if (resume.snapshotId() > snapshotId) {
        return Long.MAX_VALUE; // this bucket was published past this snapshot
      }
      return resume.fullState() == full ? resume.rowOffset() : 0;
    }

    private void advance() {
      lookahead = null;
      try {
        while (true) {
          if (rows != null && rows.hasNext()) {
            InternalRow row = rows.next();
            if (skipLeft > 0) {
              // published before a restore: counted, not copied
              skipLeft--;
              countConsumed(rowsKey);
              continue;
            }
            lookahead = schema.copy(row, snapshotId, split);
            lookaheadKey = rowsKey;
            if (full) {
              // the merged state of a key is an insert, whatever kind its last change had
              lookahead.setRowKind(RowKind.INSERT);
            }
            return;
          }
          if (rows != null) {
            rows.close();
            rows = null;
          }
          if (splitIndex >= splits.size()) {
            return;
          }
          split = splits.get(splitIndex++);
          int key = perBucket ? SplitPlace.of(split, table.fullName()).bucket() : ALL_BUCKETS;
          if (key != rowsKey) {
            // splits are sorted by bucket: a bucket's splits follow each other
            rowsKey = key;
            skipLeft = restoredSkip(key);
          }
          if (skipLeft == Long.MAX_VALUE) {
            continue;
          }
          rows = schema.open(split).toCloseableIterator();
        }
      } catch (UnreadableSnapshotException e) {
        throw e;
      } catch (LakeException e) {
        throw e;
      } catch (Exception e) {
        // the source retries the same position when storage was away, and fails the task on
        // broken files (a retry would read the same bytes): the type tells it which
        throw LakeException.wrap(
            "Reading snapshot "
                + snapshotId
                + " of table "
                + table.fullName()
                + " failed: "
                + e.getMessage(),
            e,
            (message, cause) -> new LakeDataException(message, table.fullName(), null, cause));
      }
    }

    void close() {
      if (rows != null) {
        try {
          rows.close();
        } catch (Exception e) {
          throw LakeException.wrap(
              "Closing a reader of " + table.fullName() + " failed: " + e.getMessage(),
              e,
              (message, cause) -> new LakeDataException(message, table.fullName(), null, cause));
        }
        rows = null;
      }
    }
  }
}
