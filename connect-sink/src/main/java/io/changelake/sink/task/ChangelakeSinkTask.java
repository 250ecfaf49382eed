package io.changelake.sink.task;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.commit.WriterFencedException;
import io.changelake.lsm.fault.Failures;
import io.changelake.lsm.fault.OutageTracker;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import io.changelake.schema.ConversionOptions;
import io.changelake.schema.FieldMapping;
import io.changelake.schema.RowConverter;
import io.changelake.schema.ValueConversionException;
import io.changelake.schema.evolution.EvolutionPolicy;
import io.changelake.schema.evolution.EvolutionResult;
import io.changelake.schema.evolution.SchemaEvolutionException;
import io.changelake.schema.evolution.SchemaEvolver;
import io.changelake.sink.Versions;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.config.TruncatePolicy;
import io.changelake.sink.decode.ChangeEvent;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import io.changelake.sink.decode.ChangeEvent.Truncate;
import io.changelake.sink.decode.Decoders;
import io.changelake.sink.decode.DecodingException;
import io.changelake.sink.decode.EnvelopeDecoder;
import io.changelake.sink.decode.Origin;
import io.changelake.sink.decode.SourceInfo;
import io.changelake.sink.decode.SourcePosition;
import io.changelake.sink.metrics.SinkMetrics;
import io.changelake.sink.route.TableRouter;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink loop: decode, route, provision the table, evolve its schema, convert, write; commit by
 * time and buffered size, one snapshot per table carrying the Kafka positions; report to Connect
 * only positions whose rows are committed.
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

  private ChangelakeSinkConfig config;
  private Catalog catalog;
  private WriterPool pool;
  private EnvelopeDecoder decoder;
  private TableRouter router;
  private TableProvisioner provisioner;
  private final SchemaEvolver evolver = new SchemaEvolver();
  private EvolutionPolicy policy;
  private ErrorHandler errors;
  private OffsetTracker offsets;
  private SinkMetrics metrics;
  private CompactionScheduler compaction;
  private CommitUsers users;
  private int taskId;
  private int taskCount;
  private String connector;
  // insertion order: tables commit in the order they were first written
  private final Map<Identifier, TableState> tables = new LinkedHashMap<>();
  private final SourceOrder order = new SourceOrder();
  // a newer instance of this task writes the same tables: every later call fails the task
  private ConnectException fenced;
  private OutageTracker outages;
  private boolean databaseChecked;
  // put threw RetriableException after rewinding: Connect's next put is the same batch again,
  // whose records arrive anew from the rewound positions, so that delivery is skipped
  private boolean skipRedelivery;

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
    // stable per connector and task id: Paimon commit identifiers must keep growing per user
    users = new CommitUsers(connector);
    // the compactor, opened with the lake, publishes into the task's metrics
    metrics = SinkMetrics.of(context, connector, taskId);
    outages = new OutageTracker("Sink task " + taskId + " of " + connector, config.retrySettings());
    try {
      openLake();
    } catch (RuntimeException e) {
      // Connect fails a task whose start throws: a transient failure is retried from put instead
      if (outages.failed(e, "opening the catalog")
          instanceof OutageTracker.Decision.GiveUp giveUp) {
        throw new ConnectException(giveUp.message(), e);
      }
      closeLake();
    }
    decoder = Decoders.forConfig(config);
    router =
        new TableRouter(
            config.database(),
            config.regexRules(),
            config.tableNameFormat(),
            config.sanitizeNames());
    policy = EvolutionPolicy.from(props);
    boolean tolerateAll = "all".equalsIgnoreCase(props.getOrDefault("errors.tolerance", "none"));
    errors = new ErrorHandler(tolerateAll ? context.errantRecordReporter() : null);
    offsets = new OffsetTracker(config.commitInterval(), config.commitBufferBytes());
    metrics.outages(outages);
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
    provisioner = new TableProvisioner(catalog);
    compaction = new CompactionScheduler(config, catalog, taskId, taskCount, users, metrics);
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
    provisioner = null;
    catalog = null;
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    // another task may have written these partitions meanwhile: re-read what tables contain
    tables.values().forEach(TableState::forgetContained);
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    if (fenced != null) {
      throw fenced;
    }
    if (skipRedelivery) {
      skipRedelivery = false;
      return;
    }
    for (SinkRecord record : records) {
      offsets.delivered(
          new TopicPartition(record.originalTopic(), record.originalKafkaPartition()),
          record.originalKafkaOffset());
    }
    boolean committed;
    try {
      committed = putRecords(records);
    } catch (RuntimeException e) {
      throw onFailure(e, "writing a batch of " + records.size() + " records", true);
    }
    if (committed || !records.isEmpty()) {
      outages.succeeded();
    }
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
    for (SinkRecord record : records) {
      process(record);
    }
    boolean committed = false;
    if (offsets.commitDue(pool.bufferedBytes())) {
      commitAll();
      committed = true;
      // let Connect store the new positions now rather than at its next offset flush
      context.requestCommit();
    }
    if (tables.values().stream().anyMatch(t -> t.dirty)) {
      // Connect polls for up to offset.flush.interval.ms when no records arrive; come back when
      // the buffered rows are due, even if no record does
      context.timeout(Math.max(1, offsets.millisUntilDue()));
    }
    return committed;
  }

  /**
   * A failure in put, preCommit or close. Transient (the object store, the catalog or lock
   * database, the broker unavailable) and within retry.max.duration.ms: everything not committed is
   * dropped and its records are read again from the committed positions, exactly as after a crash.
   * A commit that failed may or may not have landed; the re-opened writers and the offsets the
   * tables record settle that, as on a restart. Otherwise the task fails with what to fix.
   *
   * @param redelivered true when Connect delivers the failed batch again (RetriableException from
   *     put); that delivery is then skipped, as its records come again after the rewind
   */
  private RuntimeException onFailure(RuntimeException error, String doing, boolean redelivered) {
    OutageTracker.Decision decision = outages.failed(error, doing);
    if (decision instanceof OutageTracker.Decision.GiveUp giveUp) {
      return new ConnectException(giveUp.message(), error);
    }
    OutageTracker.Decision.Retry retry = (OutageTracker.Decision.Retry) decision;
    Map<TopicPartition, Long> rewind = discardUncommitted();
    context.offset(rewind);
    context.timeout(retry.backoff().toMillis());
    skipRedelivery = redelivered;
    return new RetriableException(
        doing
            + " failed because "
            + retry.failure().dependency().description()
            + " is unavailable (retry "
            + retry.retry()
            + " in "
            + retry.backoff().toMillis()
            + " ms, reading again from "
            + rewind
            + "): "
            + retry.failure().reason(),
        error);
  }

  /** Drops every row not committed; returns the positions to read again from. */
  private Map<TopicPartition, Long> discardUncommitted() {
    closeLake();
    // table state is rebuilt on next use: converters, what each table contains
    tables.clear();
    order.rewind();
    return offsets.rewind();
  }

  private void process(SinkRecord record) {
    metrics.recordIn();
    Origin origin = EnvelopeDecoder.originOf(record);
    Identifier table = null;
    try {
      ChangeEvent event = decoder.decode(record);
      // tombstones follow deletes, which were applied already
      if (event instanceof Truncate truncate) {
        table = route(truncate.origin(), truncate.source());
        truncate(table, truncate);
      } else if (event instanceof RowChange change) {
        table = route(change.origin(), change.source());
        write(table, change);
      }
    } catch (RecordException
        | DecodingException
        | ValueConversionException
        | SchemaEvolutionException e) {
      if (Failures.isTransient(e)) {
        // the storage or catalog failed, not the record: never dead-letter it for that
        throw ErrorHandler.describe(record, table, e);
      }
      errors.handle(record, table, e);
      metrics.recordToDlq();
    } catch (ConnectException e) {
      throw e;
    } catch (RuntimeException e) {
      throw ErrorHandler.describe(record, table, e);
    }
    offsets.processed(origin.consumed(), origin.offset() + 1);
  }

  private Identifier route(Origin origin, SourceInfo source) {
    try {
      return router.route(origin.topic(), source);
    } catch (IllegalArgumentException e) {
      throw new RecordException(e.getMessage(), null, e);
    }
  }

  private void write(Identifier id, RowChange change) {
    TableState table = table(id, change);
    SourcePartition partition = sourcePartition(change.origin());
    SourcePosition own = change.source().position();
    if (table.contains(partition, change.origin().offset())) {
      order.checkContained(change.origin(), own, table);
      order.observe(change.origin().consumed(), own);
      order.observeStream(change.origin().consumed(), change.source().stream());
      metrics.recordSkipped();
      return;
    }
    table.metrics.recordIn();
    order.checkStream(change.origin(), change.source().stream(), table);
    Optional<SourcePosition> ordered = order.orderBy(change.origin(), own, table);
    Optional<SourcePosition> truncatedAt = table.truncatedAt();
    if (ordered.isPresent()
        && truncatedAt.isPresent()
        && ordered.get().kind() == truncatedAt.get().kind()
        && ordered.get().value() < truncatedAt.get().value()) {
      // consumed after the truncate (from another partition) but older in the source: the
      // truncate deleted it
      metrics.recordSkipped();
      return;
    }
    SequenceGroups.checkTopic(
        table.groups, change.origin().topic(), id.getFullName(), table.settings.name());
    table.sources.add(sourceName(change.origin(), change.source()));
    if (change.isDelete()) {
      switch (table.settings.deletePolicy()) {
        case IGNORE -> {
          return;
        }
        case DEFAULT, REMOVE_ROW, CLEAR_COLUMNS -> {
          if (!table.acceptsDeletes()) {
            throw new RecordException(
                "Table "
                    + id.getFullName()
                    + " is a partial-update table that cannot apply deletes; set table."
                    + table.settings.name()
                    + ".delete-policy=ignore, or give the table"
                    + " partial-update.remove-record-on-delete=true");
          }
        }
      }
    }
    GenericRow row =
        RowBuilder.build(
            change,
            table.mergeEngine,
            table.groups,
            table.settings.name(),
            ordered.orElse(SourcePosition.unknown()),
            schema -> converter(table, schema, change.key(), change.origin().topic()),
            key -> table.writer().lookup(key, progress(table)));
    if (ordered.isEmpty()) {
      orderAfterStoredVersion(table, row, change.origin().topic());
    }
    table.writer().write(row);
    table.dirty = true;
    table.metrics.rowWritten(change.source().sourceTimestamp());
  }

  /**
   * A delete without a position, of a partition neither this task nor the table has a position of
   * (a table written before positions were recorded): it is ordered just after the version of its
   * key the table holds.
   */
  private void orderAfterStoredVersion(TableState table, GenericRow row, String topic) {
    int[] sequence = SequenceColumns.indexesIn(table.writer().table().rowType());
    if (sequence == null) {
      return;
    }
    table
        .writer()
        .lookup(row, progress(table))
        .ifPresent(stored -> row.setField(sequence[0], stored.getLong(sequence[0])));
    // the topic's sequence group orders its columns: it must say the same
    SequenceGroups.Columns group =
        SequenceGroups.columnsOf(table.groups, table.writer().table().rowType(), topic);
    if (group != null) {
      row.setField(group.position(), row.getField(sequence[0]));
      row.setField(group.offset(), row.getField(sequence[1]));
    }
  }

  /** The processed positions with {@code table}'s marks, as its commits record them. */
  private SourceProgress progress(TableState table) {
    return progress(table, positionsToCommit());
  }

  private SourceProgress progress(TableState table, Map<SourcePartition, Long> positions) {
    return new SourceProgress(positions, order.marksFor(table, positions.keySet()));
  }

  private static SourceTable sourceName(Origin origin, SourceInfo source) {
    return new SourceTable(
        origin.topic(),
        source
            .table()
            .map(t -> String.join(".", source.db().orElse(""), source.schema().orElse(""), t)));
  }

  private RowConverter converter(
      TableState table, Schema schema, org.apache.kafka.connect.data.Struct key, String topic) {
    RowConverter cached = table.converter(schema);
    if (cached != null && table.grouped(topic)) {
      return cached;
    }
    TableWriter writer = table.writer();
    boolean keyOnly = key != null && schema.equals(key.schema());
    FieldMapping mapping;
    if (keyOnly) {
      // a key-only delete: the key columns exist, nothing to evolve
      mapping = FieldMapping.byName(schema, writer.table().rowType());
    } else {
      EvolutionResult result;
      try {
        result =
            evolver.evolve(
                catalog,
                table.id,
                schema,
                key == null ? null : key.schema(),
                policy,
                SequenceGroups.companion(
                    table.groups, topic, writer.table().primaryKeys(), table.id.getFullName()));
      } catch (Catalog.TableNotExistException e) {
        throw new ConnectException("Table " + table.id.getFullName() + " was dropped", e);
      }
      if (result.changed()) {
        table.metrics.schemaChanged(result.applied().size());
      }
      if (!result.rowType().equals(writer.table().rowType())) {
        // the writer holds rows of the old schema: commit them, then write with the new one
        CommitResult commit = writer.reopen(progress(table));
        table.metrics.committed(0, commit);
        table.dirty = false;
        table.clearConverters();
        writer = table.writer();
      }
      mapping = result.fieldMapping();
      table.groupChecked(topic);
    }
    RowConverter converter =
        RowConverter.compile(
            schema, writer.table().rowType(), mapping, ConversionOptions.defaults());
    table.converter(schema, converter);
    return converter;
  }

  private void truncate(Identifier id, Truncate truncate) {
    TableState table = tables.get(id);
    if (table == null) {
      try {
        catalog.getTable(id);
      } catch (Catalog.TableNotExistException e) {
        return; // nothing to empty
      }
      provisioner.open(id);
      table = open(id);
    }
    if (table.contains(sourcePartition(truncate.origin()), truncate.origin().offset())) {
      metrics.recordSkipped();
      return;
    }
    TruncatePolicy truncatePolicy = table.settings.truncatePolicy();
    switch (truncatePolicy) {
      case IGNORE -> LOG.info("Ignoring truncate of {} at {}", id, truncate.origin().describe());
      case FAIL ->
          // not a bad record: fail means fail, also with errors.tolerance=all (a dead-letter
          // record would let the rows the source deleted stay in the table unnoticed)
          throw new ConnectException(
              "Cannot apply the truncate at "
                  + truncate.origin().describe()
                  + " to table "
                  + id.getFullName()
                  + ": the source table was truncated and table."
                  + table.settings.name()
                  + ".truncate-policy=fail stops the task (also with errors.tolerance=all); set it"
                  + " to delete-all or ignore to proceed");
      case DELETE_ALL -> {
        SourceTable source = sourceName(truncate.origin(), truncate.source());
        if (router.mayCombineSources(truncate.origin().topic())
            || table.sources.stream().anyMatch(s -> !s.sameAs(source))) {
          LOG.warn(
              "Not applying the truncate of {} at {} to table {}: rows of other source tables"
                  + " ({}) may share the table, and it does not record which source table a row"
                  + " came from; delete the rows of {} yourself if they must go",
              source,
              truncate.origin().describe(),
              id,
              router.mayCombineSources(truncate.origin().topic())
                  ? "the routing sends several topics to it"
                  : table.sources,
              source);
          return;
        }
        long start = System.nanoTime();
        SourcePosition at = order.positionOf(truncate, table);
        // the truncate's snapshot records the positions just past it: a task restarted after it
        // neither replays the truncate nor the rows it deleted
        SourceProgress before = progress(table);
        Map<SourcePartition, Long> positions = new HashMap<>(positionsToCommit());
        positions.put(sourcePartition(truncate.origin()), truncate.origin().offset() + 1);
        table.truncated(at);
        SourceProgress after = progress(table, positions);
        // rows the source wrote after the truncate survive it, whatever order they were consumed
        // in: other partitions' rows consumed before it, and other tasks' committed rows
        int[] sequence = SequenceColumns.indexesIn(table.writer().table().rowType());
        CommitResult result =
            table
                .writer()
                .truncate(
                    before,
                    after,
                    row -> sequence != null && row.getLong(sequence[0]) > at.value());
        table.dirty = false;
        table.metrics.committed((System.nanoTime() - start) / 1_000_000, result);
        LOG.info("Truncated {} at {}: {}", id, truncate.origin().describe(), result);
      }
    }
  }

  private TableState table(Identifier id, RowChange first) {
    TableState table = tables.get(id);
    if (table == null) {
      provisioner.provision(
          id,
          config.tableSettings(id.getObjectName()),
          first,
          router.mayCombineSources(first.origin().topic()));
      table = open(id);
    }
    return table;
  }

  /** Starts tracking a table that exists. */
  private TableState open(Identifier id) {
    TableState table =
        new TableState(
            id,
            config.tableSettings(id.getObjectName()),
            pool,
            metrics.table(id.getFullName()),
            users);
    tables.put(id, table);
    return table;
  }

  /**
   * The processed positions, for a commit to record. Records sent to the dead-letter queue count as
   * processed only once they are there: every commit, whatever triggers it (a round, a lookup, a
   * reopen, a truncate), waits for them, or a crash could leave them neither in the queue nor
   * replayed.
   */
  private Map<SourcePartition, Long> positionsToCommit() {
    errors.awaitReported();
    return OffsetTracker.asSourcePartitions(offsets.processedSnapshot());
  }

  private static SourcePartition sourcePartition(Origin origin) {
    return new SourcePartition(origin.consumed().topic(), origin.consumed().partition());
  }

  /**
   * Commits every table with rows, each as one snapshot carrying the processed positions, then
   * counts those positions as committed.
   */
  private void commitAll() {
    long start = System.nanoTime();
    metrics.commitRoundStarted();
    errors.awaitReported();
    Map<TopicPartition, Long> snapshot = offsets.processedSnapshot();
    commitTables(OffsetTracker.asSourcePartitions(snapshot), id -> true);
    offsets.committed(snapshot);
    order.committed();
    metrics.commitRound((System.nanoTime() - start) / 1_000_000);
    pool.closeIdle();
  }

  /**
   * Commits the dirty tables {@code which} selects. Package-private so a test can stop a round
   * half-way, as a crash would.
   */
  void commitTables(Map<SourcePartition, Long> positions, Predicate<Identifier> which) {
    for (TableState table : tables.values()) {
      if (!table.dirty || !which.test(table.id)) {
        continue;
      }
      long tableStart = System.nanoTime();
      CommitResult result = table.writer().commit(progress(table, positions));
      table.dirty = false;
      table.metrics.committed((System.nanoTime() - tableStart) / 1_000_000, result);
      LOG.debug("Committed {}: {}", table.id, result);
    }
  }

  /** The processed positions, for tests that commit part of a round. */
  Map<SourcePartition, Long> processedPositions() {
    return OffsetTracker.asSourcePartitions(offsets.processedSnapshot());
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    // without a catalog (closed after a failure) nothing is processed since the last commit
    if (catalog != null && offsets.intervalElapsed() && offsets.hasProcessedSinceCommit()) {
      try {
        commitAll();
        outages.succeeded();
      } catch (RuntimeException e) {
        // throwing would make Connect rewind to its own last committed offsets; the task's
        // rewind is the same, and keeps the retry bookkeeping in one place
        RuntimeException failure = onFailure(e, "committing the tables", false);
        if (!(failure instanceof RetriableException)) {
          // Connect rewinds to the offsets last reported and keeps the task running
          abandonUncommitted(failure);
          throw failure;
        }
        LOG.debug("Commit on offset flush failed; rewound", failure);
      }
    }
    return offsets.committedOffsets(currentOffsets.keySet());
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
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof WriterFencedException) {
        fenced = new ConnectException(t.getMessage(), failure);
      }
    }
  }

  /** Tables whose writer is open (not closed as idle), for tests. */
  List<Identifier> openWriters() {
    return pool.openTables();
  }

  /** Makes the next {@code preCommit} commit, as if the commit interval had elapsed. */
  void dueForCommit() {
    offsets.expireInterval();
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    // the next owner of these partitions starts from what the tables contain: commit it all
    if (catalog != null
        && (offsets.hasProcessedSinceCommit() || tables.values().stream().anyMatch(t -> t.dirty))) {
      try {
        commitAll();
      } catch (RuntimeException e) {
        // these partitions' next owner reads them from the committed offsets: only the
        // partitions this task keeps are read again here
        offsets.forget(partitions);
        RuntimeException failure = onFailure(e, "committing before partitions move", false);
        if (!(failure instanceof RetriableException)) {
          throw failure;
        }
        LOG.warn("Commit before partitions move failed; rewound: {}", failure.getMessage());
      }
    }
    offsets.forget(partitions);
    order.forget(partitions);
    tables.values().forEach(TableState::forgetContained);
  }

  @Override
  public void stop() {
    // uncommitted rows are dropped: their records are replayed from the committed offsets
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
