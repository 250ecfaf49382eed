package io.changelake.source;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.lsm.changelog.RegisteredConsumer;
import io.changelake.lsm.changelog.StartPosition;
import io.changelake.lsm.changelog.UnreadableSnapshotException;
import io.changelake.lsm.fault.OutageTracker;
import io.changelake.source.assign.BucketSet;
import io.changelake.source.assign.TableAssignment;
import io.changelake.source.metrics.SourceMetrics;
import io.changelake.source.offset.ConsumerHygiene;
import io.changelake.source.offset.OffsetTruncateBarrier;
import io.changelake.source.offset.RestorePlan;
import io.changelake.source.offset.SourceOffsets;
import io.changelake.source.record.ChangeRecords;
import io.changelake.source.record.PublishedRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the changelogs of its tables (or buckets of them) and returns them as records. A snapshot
 * cut into several batches is finished before another table is read, so with {@code
 * transaction.boundary=connector} each snapshot becomes one Kafka transaction ({@link
 * SnapshotTransactions} ends it early when it stays open too long).
 *
 * <p>The tables are read, and their changes turned into records, by a thread of the task's own
 * ({@link ReadAhead}) a few batches ahead of the task thread, which only hands them to Connect:
 * reading Paimon overlaps with Connect converting and sending the previous batch. A batch counts as
 * published once handed over, so a failure drops what was read ahead and nothing else.
 *
 * <p>A table whose snapshot cannot be read ({@link UnreadableSnapshotException}: its schema was
 * changed so that stored values no longer fit) stops being published while the task's other tables
 * go on: the error names table, snapshot and column and is logged at ERROR; nothing of the table
 * past its last published change is skipped, so restarting the task once the table is fixed resumes
 * it exactly. Failing the whole task instead would stop every healthy table with it. When every
 * table of the task has failed, the task fails with their errors, so Connect's status shows them.
 *
 * <p>The catalog and the tables are opened by the first {@link #poll}, not by {@link #start}:
 * Connect fails a task whose start throws and never starts it again, while a {@code
 * RetriableException} from poll is retried. So an object store or catalog database that is away
 * when the task starts (a worker restarted during an outage, a task moved to another worker) is
 * waited out like one that goes away later, under the same retry settings.
 */
public final class ChangelakeSourceTask extends SourceTask {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelakeSourceTask.class);

  /** Task config key holding the task's tables, set by the connector. */
  static final String TASK_TABLES = "task.tables";

  /** Task config key holding the task's number (Connect's task id), set by the connector. */
  static final String TASK_ID = "changelake.task.id";

  private static final long PRODUCER_BEHIND_WAIT_MS = 20;

  /**
   * Batches read ahead at most, waiting for the task thread: enough to keep the read going while
   * Connect converts and sends the previous one, few enough to bound memory at a few batches.
   */
  static final int READ_AHEAD_BATCHES = 2;

  private final Object sleeper = new Object();
  private volatile boolean stopping;

  private final Function<Map<String, String>, Catalog> catalogs;
  private ChangelakeSourceConfig config;
  private Map<String, String> props;
  private String connectorName;
  private Catalog catalog;
  // the catalog and every table's publisher are open (see the class comment)
  private boolean tablesOpen;
  private SnapshotTransactions transactions;
  private final List<TablePublisher> publishers = new ArrayList<>();
  private final Map<Map<String, Object>, TablePublisher> publishersByPartition = new HashMap<>();

  /**
   * Reads the tables ahead of this thread while they are open; null until then and after a failure.
   */
  private volatile ReadAhead readAhead;

  /**
   * The publisher whose snapshot was handed over only in part: a read-ahead started after a failure
   * continues with it before another table's turn.
   */
  private TablePublisher unfinished;

  private OutageTracker outages;
  private SourceMetrics metrics;
  // after a transient failure, the next read waits until then (System.nanoTime)
  private long retryAtNanos;
  private boolean retryPending;

  public ChangelakeSourceTask() {
    this(LakeCatalogs::open);
  }

  /** With catalogs opened by {@code catalogs}, for tests that take the catalog away. */
  ChangelakeSourceTask(Function<Map<String, String>, Catalog> catalogs) {
    this.catalogs = catalogs;
  }

  @Override
  public String version() {
    return Versions.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    config = new ChangelakeSourceConfig(props);
    connectorName = props.getOrDefault("name", "changelake-source");
    transactions =
        new SnapshotTransactions(
            context.transactionContext(), config.transactionMaxDuration(), System::nanoTime);
    outages = new OutageTracker("Source task of " + connectorName, config.retrySettings());
    metrics =
        SourceMetrics.of(
            context, connectorName, Integer.parseInt(props.getOrDefault(TASK_ID, "0")));
    metrics.outages(outages);
    this.props = Map.copyOf(props);
  }

  /** Opens the catalog and a publisher per assigned table, once (task thread). */
  private void openTables() {
    if (tablesOpen) {
      return;
    }
    catalog = catalogs.apply(props);
    ChangeRecords.Settings settings =
        new ChangeRecords.Settings(
            connectorName,
            config.recordFormat(),
            config.flatOpField(),
            config.tombstonesOnDelete());
    String consumerBase = config.consumerIdBase(connectorName);
    for (TableAssignment assignment : TableAssignment.decode(props.get(TASK_TABLES))) {
      FileStoreTable table;
      try {
        table = (FileStoreTable) catalog.getTable(assignment.table());
      } catch (Catalog.TableNotExistException e) {
        // dropped since the connector listed it; its next discovery round reassigns the tasks
        LOG.warn("Table {} no longer exists; not publishing it", assignment.table());
        continue;
      }
      startPublishing(assignment, table, consumerBase, settings);
    }
    tablesOpen = true;
  }

  /**
   * Resumes every bucket of the assignment from its own offset (see {@link RestorePlan}), one
   * publisher per group of buckets that can be read together, then removes this connector's
   * consumers that only covered buckets of this assignment and that no reader uses any more.
   */
  private void startPublishing(
      TableAssignment assignment,
      FileStoreTable table,
      String consumerBase,
      ChangeRecords.Settings settings) {
    Set<Integer> keys =
        assignment.buckets().isAll()
            ? Set.of(ChangelogReader.ALL_BUCKETS)
            : assignment.buckets().buckets();
    Map<Integer, Map<String, Object>> partitions = new HashMap<>();
    for (int key : keys) {
      partitions.put(key, SourceOffsets.partition(assignment.table(), key));
    }
    OffsetStorageReader offsetReader = context.offsetStorageReader();
    Map<Map<String, Object>, Map<String, Object>> offsets =
        offsetReader.offsets(partitions.values());
    Map<Integer, Optional<ReaderPosition>> stored = new HashMap<>();
    partitions.forEach(
        (key, partition) ->
            stored.put(
                key,
                SourceOffsets.parseOffset(
                    partition, offsets == null ? null : offsets.get(partition))));
    List<RegisteredConsumer> consumers = ChangelogReader.consumers(table, consumerBase);
    List<RestorePlan.LegacyOffset> legacy =
        stored.containsValue(Optional.empty())
            ? legacyOffsets(assignment.table(), consumers)
            : List.of();
    RestorePlan plan =
        RestorePlan.of(
            stored,
            legacy,
            consumers,
            config.startPosition() instanceof StartPosition.FullThenChanges);
    String topic = topicFor(assignment);
    Set<String> live = new HashSet<>();
    int bucketCount = table.bucketSpec().getNumBuckets();
    for (RestorePlan.Group group : plan.groups()) {
      Set<Integer> buckets = group.readerBuckets();
      TableAssignment part =
          new TableAssignment(
              assignment.table(), buckets.isEmpty() ? BucketSet.all() : BucketSet.of(buckets));
      TablePublisher publisher =
          new TablePublisher(
              part,
              table,
              new ChangeRecords(assignment.table(), topic, table.primaryKeys(), settings),
              new TablePublisher.Reading(consumerBase, config.startPosition(), config.batchSize()),
              group.restored(),
              metrics.table(TableNames.format(assignment.table())),
              OffsetTruncateBarrier.of(
                  table, assignment.table(), consumerBase, buckets, bucketCount, offsetReader));
      publishers.add(publisher);
      publisher.partitions().forEach(partition -> publishersByPartition.put(partition, publisher));
      live.add(publisher.consumerId());
      LOG.info(
          "Publishing {} (buckets {}) to topic {} from {}",
          assignment.table(),
          part.buckets().encode(),
          topic,
          group.fresh() ? "start position " + config.startPosition() : group.restored());
    }
    for (RegisteredConsumer stale : ConsumerHygiene.replaced(consumers, keys, live)) {
      LOG.info(
          "Removing Paimon consumer {} of table {}: its buckets are read under {} now",
          stale.id(),
          assignment.table(),
          live);
      ChangelogReader.dropConsumer(table, stale.id());
    }
  }

  /**
   * Offsets an earlier version stored under bucket-set partitions: the set of all buckets, and
   * every set one of the connector's consumers names (the sets its readers had).
   */
  private List<RestorePlan.LegacyOffset> legacyOffsets(
      Identifier table, List<RegisteredConsumer> consumers) {
    Set<Set<Integer>> sets = new HashSet<>();
    sets.add(Set.of());
    consumers.forEach(consumer -> sets.add(consumer.buckets()));
    Map<Set<Integer>, Map<String, Object>> partitions = new HashMap<>();
    sets.forEach(set -> partitions.put(set, SourceOffsets.legacyPartition(table, set)));
    Map<Map<String, Object>, Map<String, Object>> found =
        context.offsetStorageReader().offsets(partitions.values());
    List<RestorePlan.LegacyOffset> legacy = new ArrayList<>();
    partitions.forEach(
        (set, partition) ->
            SourceOffsets.parseOffset(partition, found == null ? null : found.get(partition))
                .ifPresent(position -> legacy.add(new RestorePlan.LegacyOffset(set, position))));
    if (!legacy.isEmpty()) {
      LOG.info(
          "Table {}: buckets without an offset of their own resume from the offsets {} an earlier"
              + " version stored per bucket set",
          table,
          legacy);
    }
    return legacy;
  }

  /** Closes what a failed {@link #openTables} opened, so the next poll opens everything again. */
  private void closeTables() {
    publishers.forEach(TablePublisher::discardReader);
    publishers.clear();
    publishersByPartition.clear();
    if (catalog != null) {
      try {
        catalog.close();
      } catch (Exception e) {
        LOG.debug("Closing the catalog after a failure to open the tables failed too", e);
      }
      catalog = null;
    }
  }

  private String topicFor(TableAssignment assignment) {
    return config
        .topicNameFormat()
        .replace(ChangelakeSourceConfig.DATABASE_PLACEHOLDER, assignment.table().getDatabaseName())
        .replace(ChangelakeSourceConfig.TABLE_PLACEHOLDER, assignment.table().getObjectName());
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (retryPending && awaitRetry()) {
      return null;
    }
    if (transactions.mustWait()) {
      // the producer is behind: the open transaction ended with what it holds
      synchronized (sleeper) {
        if (!stopping) {
          sleeper.wait(PRODUCER_BEHIND_WAIT_MS);
        }
      }
      return null;
    }
    // without a transaction: the producer is behind, hold back until it has caught up half way
    if (transactions.awaitRoom(config.pollInterval().toMillis()) && stopping) {
      return null;
    }
    ReadAhead reading;
    synchronized (this) {
      if (stopping) {
        return null;
      }
      try {
        openTables();
        reading = startReading();
      } catch (RuntimeException e) {
        throw onFailure(e);
      }
    }
    // outside the lock, so that stop() is not held up; stop() wakes it
    ReadAhead.Item item = reading.next(config.pollInterval().toMillis());
    if (item == null) {
      return null;
    }
    synchronized (this) {
      if (stopping || reading != readAhead) {
        return null;
      }
      try {
        return handOver(item);
      } catch (RuntimeException e) {
        throw onFailure(e);
      }
    }
  }

  /** The read-ahead of the open tables, started once they are open (task thread). */
  private ReadAhead startReading() {
    if (readAhead == null) {
      ReadAhead reading =
          new ReadAhead(
              publishers,
              unfinished,
              READ_AHEAD_BATCHES,
              config.pollInterval(),
              "changelake-source-read-" + connectorName + "-" + props.getOrDefault(TASK_ID, "0"));
      reading.start();
      readAhead = reading;
    }
    return readAhead;
  }

  /**
   * What the read-ahead found, handed to Connect: the records of a batch, or null when the poll
   * must return nothing (a table that cannot be read was taken out of the rotation, nothing new).
   */
  private List<SourceRecord> handOver(ReadAhead.Item item) {
    if (item instanceof ReadAhead.Batch batch) {
      outages.succeeded();
      List<SourceRecord> records = batch.publisher().handOver(batch.ready());
      unfinished = batch.ready().endOfSnapshot() ? null : batch.publisher();
      transactions.returning(records, batch.ready().endOfSnapshot());
      return records.isEmpty() ? null : records;
    }
    if (item instanceof ReadAhead.Unreadable unreadable) {
      // whether or not the open transaction ends here, this poll returns nothing more
      stopPublishing(unreadable.publisher());
      return null;
    }
    if (item instanceof ReadAhead.Failed failed) {
      throw failed.error();
    }
    outages.succeeded(); // a round that found nothing new
    return null;
  }

  /**
   * A failure opening or reading the tables. Transient (the object store or the catalog
   * unavailable) and within retry.max.duration.ms: every reader is dropped and reopened just after
   * the last change returned (or, when the tables were not open yet, everything is opened again),
   * after a backoff; Connect calls poll again on a RetriableException. Records already returned
   * stay in flight (and in the open transaction): nothing is published twice.
   */
  private RuntimeException onFailure(RuntimeException error) {
    String doing = tablesOpen ? "reading the tables' changelogs" : "opening the catalog and tables";
    OutageTracker.Decision decision = outages.failed(error, doing);
    if (decision instanceof OutageTracker.Decision.GiveUp giveUp) {
      stopReading();
      return new ConnectException(giveUp.message(), error);
    }
    OutageTracker.Decision.Retry retry = (OutageTracker.Decision.Retry) decision;
    stopReading();
    if (tablesOpen) {
      publishers.forEach(TablePublisher::discardReader);
    } else {
      closeTables();
    }
    retryAtNanos = System.nanoTime() + retry.backoff().toNanos();
    retryPending = true;
    return new RetriableException(
        retry.message(tablesOpen ? "Reading the changelogs" : "Opening the catalog and tables", ""),
        error);
  }

  /** Waits out the backoff after a failure; true when it waited (poll returns nothing then). */
  private boolean awaitRetry() throws InterruptedException {
    retryPending = false;
    long waitMillis = (retryAtNanos - System.nanoTime()) / 1_000_000;
    if (waitMillis <= 0) {
      return false;
    }
    synchronized (sleeper) {
      if (!stopping) {
        sleeper.wait(waitMillis);
      }
    }
    return true;
  }

  /**
   * Stops the read-ahead, dropping what it read and did not hand over; the next poll restarts it.
   */
  private void stopReading() {
    ReadAhead reading = readAhead;
    readAhead = null;
    if (reading != null) {
      reading.stop();
    }
  }

  /**
   * Takes a table whose snapshot cannot be read out of the rotation (see the class comment).
   * Returns true when the poll must return nothing, so the transaction holding the table's
   * published part ends with exactly that part.
   */
  private boolean stopPublishing(TablePublisher publisher) {
    if (unfinished == publisher) {
      unfinished = null;
    }
    String message = publisher.failureMessage();
    LOG.error(message, publisher.failure().orElseThrow());
    List<TablePublisher> failed = publishers.stream().filter(p -> p.failure().isPresent()).toList();
    if (failed.size() == publishers.size()) {
      throw new ConnectException(
          "Every table of this task stopped: "
              + String.join(" | ", failed.stream().map(TablePublisher::failureMessage).toList()),
          publisher.failure().orElseThrow());
    }
    return transactions.endEarly();
  }

  @Override
  public void commitRecord(SourceRecord record, RecordMetadata metadata) {
    transactions.acknowledged();
    // metadata is null when a transformation dropped the record: Connect is done with it too
    if (record instanceof PublishedRecord published && published.ticket() != null) {
      published.ticket().acknowledged();
      return;
    }
    TablePublisher publisher = publishersByPartition.get(record.sourcePartition());
    if (publisher != null) {
      publisher.acknowledged(record.sourcePartition(), record.sourceOffset());
    }
  }

  @Override
  public void commit() {
    for (TablePublisher publisher : publishers) {
      publisher.offsetsFlushed();
    }
  }

  @Override
  public void stop() {
    stopping = true;
    if (transactions != null) {
      transactions.release();
    }
    synchronized (sleeper) {
      sleeper.notifyAll();
    }
    // wakes a poll waiting for the read-ahead, and lets a read in progress finish before the
    // readers are closed
    stopReading();
    synchronized (this) {
      stopReading(); // one a poll started in between
      RuntimeException failure = null;
      for (TablePublisher publisher : publishers) {
        try {
          publisher.close();
        } catch (RuntimeException e) {
          failure = e;
        }
      }
      publishers.clear();
      if (metrics != null) {
        metrics.close();
      }
      try {
        if (catalog != null) {
          catalog.close();
        }
      } catch (Exception e) {
        failure = new ConnectException("Closing the Paimon catalog failed", e);
      }
      if (failure != null) {
        throw failure;
      }
    }
  }
}
