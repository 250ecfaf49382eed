package io.changelake.lsm.changelog;

import io.changelake.lsm.commit.TruncateMarker;
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
import java.util.stream.Collectors;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
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
 * <p>Positions count raw changes of one snapshot within this reader's buckets, in a fixed order
 * (splits sorted by bucket and partition), so a restored reader skips exactly what was consumed.
 * The Paimon consumer ({@link #consumerId()}) records the oldest snapshot still needed: the last
 * checkpointed snapshot, or, when everything read was checkpointed, the next one to read (so a
 * reader whose buckets see no changes does not hold back expiry). On restore the later of the
 * checkpoint and the consumer wins: both only ever mark work that is durable downstream.
 *
 * <p>Each snapshot is read with one schema, at least as new as every file it holds (see {@link
 * ReadSchema}): the reader moves to the table's latest schema when a snapshot holds files written
 * after the schema it reads with, so rows written before and after a widening or an added column
 * keep their values, and {@link ChangeBatch#rowType()} tells which schema a batch has. A value no
 * longer fitting its column fails with {@link UnreadableSnapshotException}. Not thread-safe.
 */
public final class ChangelogReader implements AutoCloseable {
  private static final Comparator<ReaderPosition> ORDER =
      Comparator.comparingLong(ReaderPosition::snapshotId)
          .thenComparing(ReaderPosition::fullState)
          .thenComparingLong(ReaderPosition::rowOffset);

  private final FileStoreTable table;
  private final String consumerId;
  private final int maxBatchSize;
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
  private ReaderPosition pendingSkip;

  /**
   * True while the scan's next plan is a full state: before the first plan of a scan that starts
   * with the full state or resumes inside one. Such a plan is never taken for a truncate.
   */
  private boolean nextPlanIsFullState;

  private ReaderPosition lastEmitted;
  private ReaderPosition lastCheckpointed;
  private long consumerSnapshot = -1;

  /**
   * @param table the table
   * @param consumerId Paimon consumer id (stable per connector and table)
   * @param buckets the buckets this reader owns; empty for all
   * @param start where to start when {@code restored} is empty
   * @param restored a checkpoint to resume from
   * @param maxBatchSize most changes per batch
   */
  public ChangelogReader(
      FileStoreTable table,
      String consumerId,
      Set<Integer> buckets,
      StartPosition start,
      Optional<ReaderPosition> restored,
      int maxBatchSize) {
    if (maxBatchSize < 1) {
      throw new IllegalArgumentException("maxBatchSize must be at least 1, got " + maxBatchSize);
    }
    this.consumerId = consumerIdFor(consumerId, buckets);
    this.maxBatchSize = maxBatchSize;
    this.consumers =
        new ConsumerManager(table.fileIO(), table.location(), table.snapshotManager().branch());
    Optional<ReaderPosition> resumeAt = restored.map(this::laterOfCheckpointAndConsumer);
    this.table = table.copy(scanOptions(table, start, resumeAt.isPresent()));
    Set<Integer> owned = Set.copyOf(buckets);
    this.announcesTruncates = owned.isEmpty() || owned.contains(0);
    this.readBuilder =
        this.table
            .newReadBuilder()
            .withBucketFilter(bucket -> owned.isEmpty() || owned.contains(bucket));
    // not this.table: a copy with scan options starting at a snapshot time-travels to that
    // snapshot's schema, and rows written since must not be read with an older one
    this.schema = new ReadSchema(table);
    this.scan = readBuilder.newStreamScan();
    if (resumeAt.isPresent()) {
      ReaderPosition position = resumeAt.get();
      checkNotExpired(position.snapshotId(), "restored position " + position);
      if (position.fullState()) {
        // re-read the full state of that snapshot, then skip what was consumed
        ((StreamDataTableScan) scan).restore(position.snapshotId(), true);
      } else {
        scan.restore(position.snapshotId());
      }
      lastEmitted = position;
      lastCheckpointed = position;
      protect(position.snapshotId());
    } else {
      checkStart(start);
      protect(firstNeededSnapshot(start));
    }
    pendingSkip = resumeAt.orElse(null);
    nextPlanIsFullState =
        resumeAt
            .map(ReaderPosition::fullState)
            .orElse(start instanceof StartPosition.FullThenChanges);
  }

  /** The consumer id a reader registers for {@code buckets} (one per bucket set). */
  public static String consumerIdFor(String consumerId, Set<Integer> buckets) {
    if (buckets.isEmpty()) {
      return consumerId;
    }
    return consumerId
        + "-buckets-"
        + new TreeSet<>(buckets).stream().map(String::valueOf).collect(Collectors.joining("_"));
  }

  /**
   * Removes the Paimon consumers whose id starts with {@code consumerIdPrefix}, so they no longer
   * hold back snapshot expiry (for a deleted connector, or bucket sets no reader uses any more).
   */
  public static void dropConsumers(FileStoreTable table, String consumerIdPrefix) {
    ConsumerManager manager =
        new ConsumerManager(table.fileIO(), table.location(), table.snapshotManager().branch());
    for (String id : manager.listAllIds()) {
      if (id.startsWith(consumerIdPrefix)) {
        manager.deleteConsumer(id);
      }
    }
  }

  /** The Paimon consumer id this reader registers. */
  public String consumerId() {
    return consumerId;
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
      lastEmitted = changes.isEmpty() ? truncate : changes.get(changes.size() - 1).position();
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
   * The position of the next change to read: checkpoint it when nothing was emitted for a while, so
   * an idle reader's offset moves too.
   */
  public ReaderPosition position() {
    if (cursor != null && !cursor.exhausted()) {
      return cursor.position();
    }
    Long next = scan.checkpoint();
    if (next != null) {
      return new ReaderPosition(next, 0, false);
    }
    return lastEmitted != null ? lastEmitted : new ReaderPosition(1, 0, false);
  }

  /** Records that everything before {@code position} is durable downstream. */
  public void checkpoint(ReaderPosition position) {
    if (lastCheckpointed != null && ORDER.compare(position, lastCheckpointed) <= 0) {
      return;
    }
    lastCheckpointed = position;
    protect(position.snapshotId());
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
        // Paimon's stream scan skips overwrite snapshots (they carry no changelog): read the
        // snapshot's full state instead, announced by the truncate, then go on after it
        ((StreamDataTableScan) scan).restore(before, true);
        truncated = before;
      }
      plan = planOrExpired();
      next = scan.checkpoint();
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
        if (nothingPending()) {
          // nothing read is waiting for a checkpoint: snapshots before `next` are not needed
          protect(next);
        }
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
    long skip = 0;
    if (pendingSkip != null
        && pendingSkip.snapshotId() == snapshotId
        && pendingSkip.fullState() == full) {
      skip = pendingSkip.rowOffset();
    }
    pendingSkip = null;
    if (nothingPending()) {
      protect(snapshotId);
    }
    schema = schema.covering(plan.splits());
    cursor =
        new PlanCursor(
            snapshotId,
            full,
            commitKind(snapshotId),
            schema,
            sorted(plan.splits()),
            next,
            truncated != null && announcesTruncates);
    cursor.skip(skip);
    return true;
  }

  /** The first plan of a scan that starts with the full state is the full state. */
  private TableScan.Plan planOrExpired() {
    try {
      return scan.plan();
    } catch (RuntimeException e) {
      if (e.getClass().getSimpleName().equals("OutOfRangeException")) {
        throw expired(e.getMessage());
      }
      throw e;
    }
  }

  private boolean nothingPending() {
    return lastEmitted == null
        || (lastCheckpointed != null && ORDER.compare(lastCheckpointed, lastEmitted) >= 0);
  }

  private void protect(long snapshotId) {
    if (snapshotId != consumerSnapshot) {
      consumers.resetConsumer(consumerId, new Consumer(snapshotId));
      consumerSnapshot = snapshotId;
    }
  }

  private ReaderPosition laterOfCheckpointAndConsumer(ReaderPosition checkpoint) {
    Optional<Consumer> consumer = consumers.consumer(consumerId);
    if (consumer.isPresent()) {
      ReaderPosition recorded = new ReaderPosition(consumer.get().nextSnapshot(), 0, false);
      if (ORDER.compare(recorded, checkpoint) > 0) {
        return recorded;
      }
    }
    return checkpoint;
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

  private static List<Split> sorted(List<Split> splits) {
    List<Split> ordered = new ArrayList<>(splits);
    ordered.sort(
        (a, b) -> {
          if (a instanceof DataSplit x && b instanceof DataSplit y) {
            int byBucket = Integer.compare(x.bucket(), y.bucket());
            return byBucket != 0
                ? byBucket
                : Arrays.compare(x.partition().toBytes(), y.partition().toBytes());
          }
          return 0;
        });
    return ordered;
  }

  private void closeCursor() {
    if (cursor != null) {
      cursor.close();
      cursor = null;
    }
  }

  /** Reads the changes of one plan in order, one change of lookahead for pairing updates. */
  private final class PlanCursor {
    final long snapshotId;
    final boolean full;
    final String commitKind;
    final ReadSchema schema;
    private final List<Split> splits;
    private final Long nextSnapshot;
    private boolean truncatePending;
    private int splitIndex;
    private CloseableIterator<InternalRow> rows;
    private InternalRow lookahead;
    private long consumed;

    PlanCursor(
        long snapshotId,
        boolean full,
        String commitKind,
        ReadSchema schema,
        List<Split> splits,
        Long nextSnapshot,
        boolean truncate) {
      this.snapshotId = snapshotId;
      this.full = full;
      this.commitKind = commitKind;
      this.schema = schema;
      this.splits = splits;
      this.nextSnapshot = nextSnapshot;
      this.truncatePending = truncate;
      advance();
    }

    /**
     * The position just after the truncate that starts this plan, once; null when it has none or
     * was taken. With rows after it, the truncate is the full state's first position (a restore
     * there reads the rows again, not the truncate); without, the position after the snapshot.
     */
    ReaderPosition takeTruncate() {
      if (!truncatePending) {
        return null;
      }
      truncatePending = false;
      return consumed == 0 && !exhausted() ? new ReaderPosition(snapshotId, 0, true) : position();
    }

    boolean exhausted() {
      return lookahead == null;
    }

    void skip(long count) {
      for (long i = 0; i < count && lookahead != null; i++) {
        take();
      }
    }

    ReaderPosition position() {
      if (exhausted()) {
        return new ReaderPosition(nextSnapshot == null ? snapshotId + 1 : nextSnapshot, 0, false);
      }
      return new ReaderPosition(snapshotId, consumed, full);
    }

    ChangeRow nextChange() {
      InternalRow row = take();
      RowKind kind = row.getRowKind();
      return switch (kind) {
        case INSERT -> new ChangeRow(RowKind.INSERT, null, row, position());
        case DELETE -> new ChangeRow(RowKind.DELETE, row, null, position());
        case UPDATE_AFTER -> new ChangeRow(RowKind.UPDATE_AFTER, null, row, position());
        case UPDATE_BEFORE -> {
          if (lookahead != null
              && lookahead.getRowKind() == RowKind.UPDATE_AFTER
              && schema.sameKey(row, lookahead)) {
            InternalRow after = take();
            yield new ChangeRow(RowKind.UPDATE_AFTER, row, after, position());
          }
          yield new ChangeRow(RowKind.UPDATE_BEFORE, row, null, position());
        }
      };
    }

    private InternalRow take() {
      InternalRow row = lookahead;
      consumed++;
      advance();
      return row;
    }

    private void advance() {
      lookahead = null;
      try {
        while (true) {
          if (rows != null && rows.hasNext()) {
            lookahead = schema.copy(rows.next(), snapshotId, splits.get(splitIndex - 1));
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
          rows = schema.open(splits.get(splitIndex++)).toCloseableIterator();
        }
      } catch (UnreadableSnapshotException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(
            "Reading snapshot "
                + snapshotId
                + " of table "
                + table.fullName()
                + " failed: "
                + e.getMessage(),
            e);
      }
    }

    void close() {
      if (rows != null) {
        try {
          rows.close();
        } catch (Exception e) {
          throw new IllegalStateException("Closing a reader of " + table.fullName() + " failed", e);
        }
        rows = null;
      }
    }
  }
}
