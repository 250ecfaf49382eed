package io.changelake.sink.task;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.schema.ConversionOptions;
import io.changelake.schema.FieldMapping;
import io.changelake.schema.RowConverter;
import io.changelake.schema.ValueConversionException;
import io.changelake.schema.evolution.EvolutionPolicy;
import io.changelake.schema.evolution.EvolutionResult;
import io.changelake.schema.evolution.SchemaEvolutionException;
import io.changelake.schema.evolution.SchemaEvolver;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.sink.config.TableSettings;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's per-record work, without Connect: decode → route → provision the table → evolve its
 * schema → build the row → write it, skipping what a table already contains and ordering by the
 * source. Commits happen here only where a record needs one (a schema change's reopen, a truncate,
 * a lookup of an uncommitted key); the rounds are {@link CommitRound}'s.
 *
 * <p>Not thread-safe: one thread at a time calls it, the task thread or the task's {@link
 * PipelineThread} (handed over with the batch).
 */
final class RecordPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(RecordPipeline.class);

  /** What the pipeline writes to while the lake is open; replaced whenever it is reopened. */
  record Lake(Catalog catalog, WriterPool pool, TableProvisioner provisioner) {}

  private final ChangelakeSinkConfig config;
  private final EnvelopeDecoder decoder;
  private final TableRouter router;
  private final SchemaEvolver evolver = new SchemaEvolver();
  private final EvolutionPolicy policy;
  private final ErrorHandler errors;
  private final OffsetTracker offsets;
  private final SinkMetrics metrics;
  private final CommitUsers users;
  // insertion order: tables commit in the order they were first written
  private final Map<Identifier, TableState> tables = new LinkedHashMap<>();
  private final SourceOrder order = new SourceOrder();
  // the table, topic and source of the last source table noted (see noteSource)
  private TableState lastNoted;
  private String lastNotedTopic;
  private SourceInfo lastNotedSource;
  // the partition of the record before, as consumed and as commits record it: records mostly come
  // in runs of one partition, and two new objects per record were garbage on the task thread
  private TopicPartition lastConsumed;
  private SourcePartition lastPartition;
  private Catalog catalog;
  private WriterPool pool;
  private TableProvisioner provisioner;

  /** Decodes and routes as {@code config} says: the decoder and router are built from it here. */
  RecordPipeline(
      ChangelakeSinkConfig config,
      EvolutionPolicy policy,
      ErrorHandler errors,
      OffsetTracker offsets,
      SinkMetrics metrics,
      CommitUsers users) {
    this.config = config;
    this.decoder = Decoders.forConfig(config);
    this.router =
        new TableRouter(
            config.database(),
            config.regexRules(),
            config.tableNameFormat(),
            config.sanitizeNames());
    this.policy = policy;
    this.errors = errors;
    this.offsets = offsets;
    this.metrics = metrics;
    this.users = users;
  }

  /** Writes to {@code lake} from now on; null when it is closed (its tables are forgotten). */
  void lake(Lake lake) {
    if (lake == null) {
      catalog = null;
      pool = null;
      provisioner = null;
      // table state is rebuilt on next use: converters, what each table contains
      tables.clear();
      lastNoted = null;
      return;
    }
    catalog = lake.catalog();
    pool = lake.pool();
    provisioner = lake.provisioner();
  }

  /** The tables written since the lake was opened, in the order they were first written. */
  Map<Identifier, TableState> tables() {
    return tables;
  }

  /** The one table every record of {@code topic} goes to, if the topic alone names it. */
  Optional<Identifier> tableOfTopic(String topic) {
    return router.tableOfTopic(topic);
  }

  /** The source positions reached, per partition (see {@link SourceOrder}). */
  SourceOrder order() {
    return order;
  }

  /** Decodes, routes and writes one record, then counts it processed. */
  void process(SinkRecord record) {
    Rejected rejected = processOrReject(record);
    if (rejected != null) {
      deadLetter(rejected);
    }
  }

  /**
   * A record the dead-letter queue must take (errors are tolerated), not yet reported nor counted
   * processed: Connect's reporter is called on the task thread only ({@link PipelineThread}).
   */
  record Rejected(SinkRecord record, Origin origin, Identifier table, RuntimeException error) {}

  /**
   * Like {@link #process}, but a record for the dead-letter queue is returned instead of reported;
   * the records after it must wait until {@link #deadLetter} took it.
   */
  Rejected processOrReject(SinkRecord record) {
    metrics.recordIn();
    Origin origin = EnvelopeDecoder.originOf(record, lastConsumed);
    Identifier table = null;
    try {
      ChangeEvent event = decoder.decode(record, origin);
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
      if (!FailurePolicy.isRecordFault(e) || !errors.tolerates()) {
        // the storage or catalog failed, not the record: never dead-letter it for that
        throw ErrorHandler.describe(record, table, e);
      }
      return new Rejected(record, origin, table, e);
    } catch (ConnectException e) {
      throw e;
    } catch (RuntimeException e) {
      throw ErrorHandler.describe(record, table, e);
    }
    offsets.processed(origin.consumed(), origin.offset() + 1);
    return null;
  }

  /** Sends a rejected record to the dead-letter queue and counts it processed. */
  void deadLetter(Rejected rejected) {
    errors.handle(rejected.record(), rejected.table(), rejected.error());
    metrics.recordToDlq();
    offsets.processed(rejected.origin().consumed(), rejected.origin().offset() + 1);
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
    table.routedFrom(partition);
    SourcePosition own = change.source().position();
    if (table.contains(partition, change.origin().offset())) {
      if (LOG.isDebugEnabled() && table.firstSkip(partition)) {
        LOG.debug(
            "Skipping {}, and the records of its partition after it that table {} also holds"
                + " already (its committed offsets say so)",
            change.origin().describe(),
            id);
      }
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
    SequenceGroups.checkTopic(table.groups, change.origin().topic(), id, table.settings.name());
    noteSource(table, change.origin(), change.source());
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
    table.rowWritten(change.origin().timestamp());
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

  /**
   * {@code table}'s commit of {@code positions}, those of the partitions whose records were routed
   * to it (see {@link TableState#positionsOf}), with the marks the task reached.
   */
  SourceProgress progress(TableState table, Map<SourcePartition, Long> positions) {
    Map<SourcePartition, Long> own = table.positionsOf(positions);
    return new SourceProgress(own, order.marksFor(table, own.keySet()));
  }

  /**
   * Adds the record's source table to those {@code table} holds rows of. Consecutive records mostly
   * come from one source table: building and hashing its name per record cost more than the check.
   */
  private void noteSource(TableState table, Origin origin, SourceInfo source) {
    if (table == lastNoted
        && origin.topic().equals(lastNotedTopic)
        && source.table().equals(lastNotedSource.table())
        && source.schema().equals(lastNotedSource.schema())
        && source.db().equals(lastNotedSource.db())) {
      return;
    }
    table.sources.add(sourceName(origin, source));
    lastNoted = table;
    lastNotedTopic = origin.topic();
    lastNotedSource = source;
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
    table.routedFrom(sourcePartition(truncate.origin()));
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
        // in: other partitions' rows consumed before it, and other tasks' committed rows. Rows at
        // the truncate's very position survive too, as they do when consumed after it (see write):
        // a Kafka timestamp or source.ts_ms is one millisecond, and Debezium sends a truncate and
        // the change committed right after it within one (e2e ChangeOrderTest lost that insert
        // whenever its partition was consumed first)
        int[] sequence = SequenceColumns.indexesIn(table.writer().table().rowType());
        CommitResult result =
            table
                .writer()
                .truncate(
                    before,
                    after,
                    row -> sequence != null && row.getLong(sequence[0]) >= at.value());
        table.dirty = false;
        table.metrics.committed((System.nanoTime() - start) / 1_000_000, result);
        LOG.info("Truncated {} at {}: {}", id, truncate.origin().describe(), result);
      }
    }
  }

  private TableState table(Identifier id, RowChange first) {
    TableState table = tables.get(id);
    if (table == null) {
      TableSettings settings = config.tableSettings(id.getObjectName());
      provisioner.provision(id, settings, first, router.mayCombineSources(first.origin().topic()));
      table = open(id, settings);
    }
    return table;
  }

  /** Starts tracking a table that exists. */
  private TableState open(Identifier id) {
    return open(id, config.tableSettings(id.getObjectName()));
  }

  private TableState open(Identifier id, TableSettings settings) {
    TableState table = new TableState(id, settings, pool, metrics.table(id.getFullName()), users);
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

  private SourcePartition sourcePartition(Origin origin) {
    if (origin.consumed() != lastConsumed) {
      lastConsumed = origin.consumed();
      lastPartition = new SourcePartition(lastConsumed.topic(), lastConsumed.partition());
    }
    return lastPartition;
  }
}
