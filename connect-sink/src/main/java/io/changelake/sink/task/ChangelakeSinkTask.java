package io.changelake.sink.task;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.fault.OutageTracker;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import io.changelake.schema.evolution.EvolutionPolicy;
import io.changelake.sink.Versions;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.metrics.SinkMetrics;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink task, wiring Connect to its two parts: {@link RecordPipeline} (decode, route, provision
 * the table, evolve its schema, convert, write) and {@link CommitRound} (commit by time and
 * buffered size, one snapshot per table carrying the Kafka positions, landing off the task thread);
 * report to Connect only positions whose rows are committed. The task itself opens and closes the
 * lake, decides when a round is due and rides out failures.
 *
 * <p>Exactly-once in effect: every table snapshot records, per partition, the next offset it
 * contains. After a crash Connect replays from its last committed offset, and records a table
 * already contains are skipped for that table, so a crash between the table commits and Connect's
 * offset commit, or in the middle of committing several tables, neither loses nor doubles a row.
 */
public final class ChangelakeSinkTask extends SinkTask {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelakeSinkTask.class);

  /** Task config keys added by the connector. */
  public static final String TASK_ID = "changelake.task.id";

  public static final String TASK_COUNT = "changelake.task.count";

  // how soon put comes back, without records, to report a round that is landing
  private static final long ROUND_POLL_MS = 200;

  // ... once the next round is due too: it starts in the first put after the landing, and every
  // millisecond between the two adds to the latency of every row it takes (at 100 tables a round
  // outlasting a 1 s interval waited up to 200 ms more for that put)
  private static final long DUE_ROUND_POLL_MS = 20;

  private ChangelakeSinkConfig config;
  private Catalog catalog;
  private WriterPool pool;
  private ErrorHandler errors;
  private OffsetTracker offsets;
  private SinkMetrics metrics;
  private CompactionScheduler compaction;
  private CommitUsers users;
  // the commit rounds, landing on committer threads while this thread reads on
  private CommitRound rounds;
  private int taskId;
  private int taskCount;
  private String connector;
  // decode → route → evolve → row → write, per record
  private RecordPipeline pipeline;
  // runs the pipeline over a batch while Connect fetches and converts the next
  private PipelineThread ahead;
  // the failure of a batch that preCommit found, thrown by the next put (where Connect fails the
  // task or delivers the batch again; preCommit's failures only rewind), and what the batch was
  private RuntimeException batchFailure;
  private String batchFailureDoing;
  private Map<Identifier, TableState> tables;
  private SourceOrder order;
  // a newer instance of this task writes the same tables: every later call fails the task
  private ConnectException fenced;
  private OutageTracker outages;
  private FailurePolicy failures;
  private boolean databaseChecked;
  // the batch of a put that threw RetriableException after rewinding. Connect delivers it again,
  // the same record objects, and that delivery is skipped: its records arrive anew from the
  // rewound positions. Unless a rebalance took its records out first: Connect then stops waiting
  // to deliver it and delivers records polled anew, which must be written (identity tells them)
  private Set<SinkRecord> failedBatch;
  // the rewind of a failure in preCommit, handed to Connect in the next put: Connect calls
  // preCommit and then close for partitions it revokes, and at its next poll seeks every partition
  // a rewind names, assigned or not (a partition gone fails the task: "No current assignment")
  private Map<TopicPartition, Long> pendingRewind;
  // delivered records waiting while the committed positions stand still (see warnIfStuck)
  private StuckWatch stuck;
  // partitions assigned anew, read on from where their tables stand
  private final SkipAhead handedOver = new SkipAhead();

  @Override
  public String version() {
    return Versions.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    config = new ChangelakeSinkConfig(props);
    taskId = Integer.parseInt(props.getOrDefault(TASK_ID, "0"));
    taskCount = Integer.parseInt(props.getOrDefault(TASK_COUNT, "1"));
    connector = props.getOrDefault("name", "changelake-sink");
    // the worker's pacing option is checked before anything opens: a bad value fails the start
    FlushPacing pacing = FlushPacing.forCommitInterval(config.commitInterval());
    // stable per connector and task id: Paimon commit identifiers must keep growing per user
    users = new CommitUsers(connector);
    // the compactor, opened with the lake, publishes into the task's metrics
    metrics = SinkMetrics.of(context, connector, taskId);
    outages = new OutageTracker("Sink task " + taskId + " of " + connector, config.retrySettings());
    boolean tolerateAll = "all".equalsIgnoreCase(props.getOrDefault("errors.tolerance", "none"));
    errors = new ErrorHandler(tolerateAll ? context.errantRecordReporter() : null);
    offsets =
        new OffsetTracker(config.commitInterval(), config.commitBufferBytes(), taskId, taskCount);
    stuck = StuckWatch.forCommitInterval(config.commitInterval());
    pipeline =
        new RecordPipeline(config, EvolutionPolicy.from(props), errors, offsets, metrics, users);
    tables = pipeline.tables();
    order = pipeline.order();
    ahead =
        new PipelineThread(
            pipeline, config.pipelineThread(), "changelake-pipeline-" + connector + "-" + taskId);
    failures = new FailurePolicy(outages);
    try {
      openLake();
    } catch (RuntimeException e) {
      // Connect fails a task whose start throws: a transient failure is retried from put instead
      if (failures.onFailure(e, "opening the catalog")
          instanceof FailurePolicy.Decision.Fail fail) {
        throw new ConnectException(fail.message(), e);
      }
      closeLake();
    }
    metrics.outages(outages);
    rounds = new CommitRound(connector, taskId, config.commitThreads(), pacing, metrics);
    LOG.info(
        "Changelake sink task {} of {} started for connector {}, warehouse {}",
        taskId,
        taskCount,
        connector,
        props.get(ChangelakeSinkConfig.WAREHOUSE));
  }

  /** Opens the catalog and what uses it: the writers, the table provisioner, the compactor. */
  private void openLake() {
    catalog = LakeCatalogs.open(config.catalogProperties());
    pool =
        new WriterPool(
            catalog,
            new WriterSettings(
                users.task(taskId),
                config
                    .spillDirectory()
                    .resolve(connector.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + taskId),
                config.writerMemoryBytes(),
                config.writerIdleTimeout()));
    pipeline.lake(new RecordPipeline.Lake(catalog, pool, new TableProvisioner(catalog)));
    compaction =
        new CompactionScheduler(
            config,
            catalog,
            taskId,
            taskCount,
            users,
            metrics,
            CompactionScheduler.COMPACT_AND_MAINTAIN);
    compaction.start();
  }

  /**
   * Closes what {@link #openLake} opened, dropping uncommitted rows. After an outage the catalog's
   * pooled JDBC connections may be dead for good (Paimon 1.3 does not replace them): the next put
   * opens everything afresh.
   */
  private void closeLake() {
    // with the dependency down, closing often fails too; the outage is logged once already
    for (AutoCloseable c : new AutoCloseable[] {compaction, pool, catalog}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        LOG.debug("Closing {} after a failure failed too", c.getClass().getSimpleName(), e);
      }
    }
    compaction = null;
    pool = null;
    catalog = null;
    pipeline.lake(null);
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    // called in the consumer's poll, while the pipeline thread may still write the batch before
    stashBatchFailure();
    // another task may have written these partitions meanwhile: re-read what tables contain
    tables.values().forEach(TableState::forgetContained);
    handedOver.opened(partitions, pipeline::tableOfTopic);
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    if (fenced != null) {
      throw fenced;
    }
    String batchBefore = batchBeingFinished();
    try {
      finishBatch();
    } catch (RuntimeException e) {
      // Connect delivers this put's batch again after a RetriableException: it is skipped, as
      // every record since the committed positions is read again
      throw onFailure(e, batchBefore, records);
    }
    if (pendingRewind != null && !rewindPending(records)) {
      return;
    }
    if (failedBatch != null) {
      boolean redelivery = records.stream().allMatch(failedBatch::contains);
      failedBatch = null;
      if (redelivery) {
        return;
      }
    }
    Map<TopicPartition, Long> skips = handedOver.decide(offsets, tables);
    if (!skips.isEmpty()) {
      records = skipAhead(skips, records);
    }
    // noted per run of one partition, not per record: a batch mostly holds runs of one
    // partition, and a partition and a map entry per record showed in profiles
    TopicPartition run = null;
    long runFirst = 0;
    long runLast = 0;
    for (SinkRecord record : records) {
      if (run == null
          || run.partition() != record.originalKafkaPartition()
          || !Objects.equals(run.topic(), record.originalTopic())) {
        if (run != null) {
          offsets.delivered(run, runFirst, runLast);
        }
        run = new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
        runFirst = record.originalKafkaOffset();
      }
      runLast = record.originalKafkaOffset();
    }
    if (run != null) {
      offsets.delivered(run, runFirst, runLast);
    }
    if (!records.isEmpty() && LOG.isDebugEnabled()) {
      LOG.debug(
          "Sink task {} of {}: put of {} records, offsets {}",
          taskId,
          connector,
          records.size(),
          OffsetTracker.offsetRanges(records));
    }
    boolean committed;
    try {
      committed = putRecords(records);
    } catch (CommitRound.TableCommitException e) {
      // a round landing on the committer threads failed; its message names the table
      throw onFailure(e, "committing a round of tables", records);
    } catch (RuntimeException e) {
      throw onFailure(e, "writing a batch of " + records.size() + " records", records);
    }
    if (committed) {
      outages.succeeded();
    }
  }

  /**
   * Reads partitions assigned anew on from the offsets their tables hold ({@link SkipAhead}): the
   * batch's records below are dropped, and counted processed with those before them.
   */
  private Collection<SinkRecord> skipAhead(
      Map<TopicPartition, Long> skips, Collection<SinkRecord> records) {
    SkipAhead.Skipped skipped = SkipAhead.skip(records, skips);
    skips.forEach(
        (partition, to) -> {
          LOG.info(
              "Sink task {} of {}: partition {} was assigned to it from offset {} on (where its"
                  + " consumer group stood), and its table holds its records up to offset {}"
                  + " already (committed by its previous owner): reading on from there",
              taskId,
              connector,
              partition,
              offsets.firstDelivered(partition),
              to);
          offsets.processed(partition, to);
        });
    if (!skipped.seeks().isEmpty()) {
      context.offset(skipped.seeks());
    }
    return skipped.records();
  }

  /** What {@link #finishBatch} finishes, for its failure's message: taken before it runs. */
  private String batchBeingFinished() {
    return batchFailure != null
        ? batchFailureDoing
        : "writing a batch of " + ahead.inFlightSize() + " records";
  }

  /**
   * {@link #finishBatch} where Connect would not fail the task for a failure (preCommit, open): the
   * failure is kept for the next put, which throws it. False when there is one.
   */
  private boolean stashBatchFailure() {
    String doing = batchBeingFinished();
    try {
      finishBatch();
      return true;
    } catch (RuntimeException e) {
      batchFailure = e;
      batchFailureDoing = doing;
      return false;
    }
  }

  /**
   * Finishes the batch handed to the pipeline thread, if any, before anything else reads or changes
   * what it writes (tables, positions, the lake). Throws its failure, or the one preCommit found.
   */
  private void finishBatch() {
    if (batchFailure != null) {
      RuntimeException failure = batchFailure;
      batchFailure = null;
      throw failure;
    }
    if (ahead.await()) {
      outages.succeeded();
    }
  }

  /**
   * Hands the rewind of a failure in preCommit to Connect, without the partitions closed since.
   * Records of a partition that start after its rewind position were polled before the rewind and
   * would leave a gap: then the whole batch is read again (its partitions from its first records
   * where the rewind does not name them) and false is returned; otherwise the batch is processed.
   */
  private boolean rewindPending(Collection<SinkRecord> records) {
    Map<TopicPartition, Long> rewind = pendingRewind;
    pendingRewind = null;
    Map<TopicPartition, Long> firsts = new HashMap<>();
    for (SinkRecord record : records) {
      firsts.putIfAbsent(
          new TopicPartition(record.originalTopic(), record.originalKafkaPartition()),
          record.originalKafkaOffset());
    }
    boolean gap =
        firsts.entrySet().stream()
            .anyMatch(f -> rewind.containsKey(f.getKey()) && f.getValue() > rewind.get(f.getKey()));
    if (gap) {
      firsts.forEach(rewind::putIfAbsent);
    } else {
      rewind.keySet().removeAll(firsts.keySet());
    }
    if (!rewind.isEmpty()) {
      context.offset(rewind);
    }
    return !gap;
  }

  /** Processes the records, then commits if due; true when it committed. */
  private boolean putRecords(Collection<SinkRecord> records) {
    if (catalog == null) {
      openLake(); // closed after a failure
    }
    if (!databaseChecked) {
      // here, not in start: Connect retries put, but fails a task whose start failed
      LakeTables.createDatabaseIfAbsent(catalog, config.database());
      databaseChecked = true;
    }
    // a round that landed meanwhile: its positions are committed now (its failure is thrown)
    boolean committed = applyLanded(rounds.poll());
    if (records.size() < config.pipelineThreadMinRecords() || roundDue()) {
      // written here, then a round if due, which takes it: a small batch (a low rate: nothing to
      // overlap with, and the handover cost latency; pipeline.thread.min.records), or the batch
      // of a round, once per interval
      ahead.process(records);
      records = List.of();
      committed |= applyLanded(rounds.poll());
      if (roundDue()) {
        startRound("due in put");
      }
    }
    long timeout = -1;
    if (rounds.inFlight()) {
      // come back soon to report the round's positions once it landed, even if no record arrives
      timeout =
          offsets.intervalElapsed()
              ? DUE_ROUND_POLL_MS
              : Math.min(ROUND_POLL_MS, Math.max(1, offsets.millisUntilDue()));
    } else if (!records.isEmpty() || tables.values().stream().anyMatch(t -> t.dirty)) {
      // Connect polls for up to offset.flush.interval.ms when no records arrive; come back when
      // the buffered rows are due, even if no record does
      timeout = Math.max(1, offsets.millisUntilDue());
    }
    // last: from here to the next finishBatch the pipeline thread owns tables and positions
    ahead.submit(records);
    if (timeout >= 0) {
      context.timeout(timeout);
    }
    return committed;
  }

  /**
   * Whether put starts a round. One due by time while one lands waits for it off the task thread:
   * this thread reads on and starts it in the first put after the landing; only a full buffer waits
   * here, which bounds what is buffered besides the round in flight.
   */
  private boolean roundDue() {
    long buffered = pool.bufferedBytes();
    return offsets.commitDue(buffered) && (!rounds.inFlight() || offsets.bufferFull(buffered));
  }

  /**
   * A failure in put, preCommit or close. Transient (the object store, the catalog or lock
   * database, the broker unavailable) and within retry.max.duration.ms: everything not committed is
   * dropped and its records are read again from the committed positions, exactly as after a crash.
   * A commit that failed may or may not have landed; the re-opened writers and the offsets the
   * tables record settle that, as on a restart. Otherwise the task fails with what to fix.
   *
   * @param batch the batch of the failed put, which Connect delivers again after a
   *     RetriableException (that delivery is then skipped, as its records come again after the
   *     rewind); null for preCommit and close
   */
  private RuntimeException onFailure(
      RuntimeException error, String doing, Collection<SinkRecord> batch) {
    return onFailure(error, doing, batch, false);
  }

  /**
   * @param deferRewind hand the rewind to Connect in the next put (a failure in preCommit, which
   *     Connect also calls for partitions it is revoking)
   */
  private RuntimeException onFailure(
      RuntimeException error, String doing, Collection<SinkRecord> batch, boolean deferRewind) {
    FailurePolicy.Decision decision = failures.onFailure(error, doing);
    if (decision instanceof FailurePolicy.Decision.Fail fail) {
      return new ConnectException(fail.message(), error);
    }
    OutageTracker.Decision.Retry retry = ((FailurePolicy.Decision.Retry) decision).outage();
    Map<TopicPartition, Long> rewind = discardUncommitted();
    if (deferRewind) {
      pendingRewind = new HashMap<>(rewind);
    } else {
      context.offset(rewind);
    }
    context.timeout(retry.backoff().toMillis());
    if (batch != null) {
      failedBatch = Collections.newSetFromMap(new IdentityHashMap<>());
      failedBatch.addAll(batch);
    }
    return new RetriableException(retry.message(doing, ", reading again from " + rewind), error);
  }

  /** Drops every row not committed; returns the positions to read again from. */
  private Map<TopicPartition, Long> discardUncommitted() {
    // never close the writers under a round landing: its outcome is settled by the rewind below
    // (tables it committed skip the records read again)
    rounds.discard();
    // table state is rebuilt on next use (closing the lake forgets it): converters, what each
    // table contains
    closeLake();
    order.rewind();
    return offsets.rewind();
  }

  /**
   * Starts a commit round: waits for the one in flight (at most one is: this bounds what is sealed
   * but not committed), then seals every table with rows, each to become one snapshot carrying the
   * processed positions, and lets the committer threads land them while this thread reads on. Those
   * positions count as committed only once every table landed ({@link #applyLanded}).
   */
  private void startRound(String why) {
    applyLanded(rounds.awaitIfAny());
    // dead-letter sends count as processed once they are in the queue (see positionsToCommit)
    errors.awaitReported();
    Map<TopicPartition, Long> snapshot = offsets.processedSnapshot();
    Map<SourcePartition, Long> positions = OffsetTracker.asSourcePartitions(snapshot);
    List<TableState> dirty = tables.values().stream().filter(t -> t.dirty).toList();
    // which tables a round takes and how far it reaches tell a partition that stopped delivering
    // (positions stand still) from records processed without rows (positions move, no table);
    // rounds with neither, one per interval while nothing arrives, are not worth a line
    if (LOG.isDebugEnabled()) {
      Map<TopicPartition, Long> before = offsets.committedSnapshot();
      if (!dirty.isEmpty() || !snapshot.equals(before)) {
        LOG.debug(
            "Sink task {} of {}: commit round ({}) of tables with rows {} at positions {};"
                + " committed before {}",
            taskId,
            connector,
            why,
            dirty.stream().map(t -> t.id.getFullName()).toList(),
            snapshot,
            before);
      }
    }
    offsets.roundStarted();
    rounds.start(snapshot, order.reached(), dirty, table -> pipeline.progress(table, positions));
  }

  /** A round and everything before it committed, before this returns: partitions move, or idle. */
  private void commitAll(String why) {
    applyLanded(rounds.awaitIfAny());
    startRound(why);
    applyLanded(rounds.awaitIfAny());
  }

  /** Counts a landed round's positions as committed; true when there was one. */
  private boolean applyLanded(Optional<CommitRound.Landed> landed) {
    if (landed.isEmpty()) {
      return false;
    }
    if (LOG.isDebugEnabled()
        && (landed.get().tables() > 0
            || !landed.get().positions().equals(offsets.committedSnapshot()))) {
      LOG.debug(
          "Sink task {} of {}: a round of {} tables landed, positions committed {}",
          taskId,
          connector,
          landed.get().tables(),
          landed.get().positions());
    }
    offsets.committed(landed.get().positions());
    order.committed(landed.get().reached());
    pool.closeIdle();
    // let Connect store the new positions now rather than at its next offset flush
    context.requestCommit();
    return true;
  }

  /**
   * Commits the dirty tables {@code which} selects. Package-private so a test can stop a round
   * half-way, as a crash would.
   */
  void commitTables(Map<SourcePartition, Long> positions, Predicate<Identifier> which) {
    finishBatch();
    for (TableState table : tables.values()) {
      if (!table.dirty || !which.test(table.id)) {
        continue;
      }
      long tableStart = System.nanoTime();
      CommitResult result = table.writer().commit(pipeline.progress(table, positions));
      table.dirty = false;
      table.metrics.committed((System.nanoTime() - tableStart) / 1_000_000, result);
      LOG.debug("Committed {}: {}", table.id, result);
    }
  }

  /** The processed positions, for tests that commit part of a round. */
  Map<SourcePartition, Long> processedPositions() {
    finishBatch();
    return OffsetTracker.asSourcePartitions(offsets.processedSnapshot());
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    if (!stashBatchFailure()) {
      // nothing more is committed; the next put throws it
      return offsets.committedOffsets(currentOffsets.keySet());
    }
    // without a catalog (closed after a failure) nothing is processed since the last commit
    if (catalog != null
        && (rounds.inFlight()
            || (offsets.intervalElapsed() && offsets.hasProcessedSinceCommit()))) {
      try {
        if (applyLanded(rounds.poll())) {
          outages.succeeded();
        }
        if (!rounds.inFlight() && offsets.intervalElapsed() && offsets.hasProcessedSinceCommit()) {
          // no record came to start the round in put: nothing is read meanwhile, so waiting for
          // it here costs no consumption and reports its positions at once
          commitAll("due on offset flush");
          outages.succeeded();
        }
      } catch (RuntimeException e) {
        // throwing would make Connect rewind to its own last committed offsets; the task's
        // rewind is the same, and keeps the retry bookkeeping in one place
        RuntimeException failure = onFailure(e, "committing the tables", null, true);
        if (!(failure instanceof RetriableException)) {
          // Connect rewinds to the offsets last reported and keeps the task running
          abandonUncommitted(failure);
          throw failure;
        }
        // the outage's first failure is logged at WARN by the outage tracker, the rest here
        LOG.debug("Commit on offset flush failed; rewound", failure);
      }
    }
    warnIfStuck();
    return offsets.committedOffsets(currentOffsets.keySet());
  }

  /**
   * Warns, once per stretch, when records delivered to the task stay out of the tables while the
   * committed positions do not move for a while ({@link StuckWatch}). Connect asks for offsets
   * regularly, also while no record arrives, so this runs then too.
   */
  private void warnIfStuck() {
    Map<TopicPartition, String> waiting = offsets.deliveredNotCommitted();
    Optional<Duration> stuckFor =
        stuck.stuckFor(!waiting.isEmpty(), offsets.committedSnapshot(), System.nanoTime());
    if (stuckFor.isEmpty()) {
      return;
    }
    LOG.warn(
        "Sink task {} of {}: records delivered to it (partition=committed..delivered next offsets"
            + " {}) have not reached the tables for {} s, and nothing was committed meanwhile."
            + " Processed up to {}; tables with uncommitted rows {}; a commit round is {}in flight."
            + " Rows normally reach the tables within commit.interval.ms ({} ms); with the logger"
            + " io.changelake.sink.task at DEBUG the task logs its puts and commit rounds",
        taskId,
        connector,
        waiting,
        stuckFor.get().toSeconds(),
        offsets.processedSnapshot(),
        tables.values().stream().filter(t -> t.dirty).map(t -> t.id.getFullName()).toList(),
        rounds.inFlight() ? "" : "not ",
        config.commitInterval().toMillis());
  }

  /** Warns about delivered records uncommitted this long instead, for tests. */
  void stuckAfter(Duration after) {
    stuck.after(after);
  }

  /**
   * After a failed commit round in {@code preCommit}, Connect rewinds the consumer to the positions
   * last reported and delivers those records again, so everything not committed is dropped here and
   * each table's committed offsets are read again: tables the round committed skip the replayed
   * records (aggregation tables would count them twice), and a commit that failed yet landed is not
   * committed a second time with the replayed rows.
   */
  private void abandonUncommitted(RuntimeException failure) {
    LOG.warn(
        "A commit round failed; Connect replays from the positions last reported, so the rows"
            + " not committed are dropped and each table's committed offsets are read again",
        failure);
    try {
      rounds.discard();
      pool.discardUncommitted();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
    offsets.rewind();
    order.rewind();
    for (TableState table : tables.values()) {
      table.dirty = false;
      table.forgetContained();
    }
    FailurePolicy.fencedBy(failure)
        .ifPresent(f -> fenced = new ConnectException(f.getMessage(), failure));
  }

  /** Tables whose writer is open (not closed as idle), for tests. */
  List<Identifier> openWriters() {
    finishBatch();
    return pool.openTables();
  }

  /** Holds the committer threads until the latch is counted down, for tests. */
  java.util.concurrent.CountDownLatch holdCommitter() {
    return rounds.hold();
  }

  /** Makes the next {@code preCommit} commit, as if the commit interval had elapsed. */
  void dueForCommit() {
    offsets.expireInterval();
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    String doing = batchBeingFinished();
    try {
      finishBatch();
      doing = "committing before partitions move";
      // the next owner of these partitions starts from what the tables contain: commit it all
      if (catalog != null
          && (rounds.inFlight()
              || offsets.hasProcessedSinceCommit()
              || tables.values().stream().anyMatch(t -> t.dirty))) {
        commitAll("partitions " + partitions + " closing");
      }
    } catch (RuntimeException e) {
      // these partitions' next owner reads them from the committed offsets: only the
      // partitions this task keeps are read again here
      offsets.forget(partitions);
      RuntimeException failure = onFailure(e, doing, null);
      if (!(failure instanceof RetriableException)) {
        throw failure;
      }
      LOG.warn("Before partitions move, {} failed; rewound: {}", doing, failure.getMessage());
    }
    offsets.forget(partitions);
    order.forget(partitions);
    handedOver.closed(partitions);
    if (pendingRewind != null) {
      pendingRewind.keySet().removeAll(partitions);
    }
    tables.values().forEach(TableState::forgetContained);
  }

  @Override
  public void stop() {
    // uncommitted rows are dropped: their records are replayed from the committed offsets; a round
    // landing is let finish first (the writers must not close under it), its positions unreported;
    // so is a batch being written
    closeQuietly(ahead);
    closeQuietly(rounds);
    closeQuietly(compaction);
    closeQuietly(pool);
    closeQuietly(catalog);
    closeQuietly(metrics);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.warn("Closing {} failed", closeable.getClass().getSimpleName(), e);
    }
  }
}
