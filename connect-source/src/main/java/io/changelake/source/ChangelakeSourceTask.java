package io.changelake.source;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.PositionExpiredException;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.source.assign.TableAssignment;
import io.changelake.source.offset.SourceOffsets;
import io.changelake.source.record.ChangeRecords;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the changelogs of its tables (or buckets of them) and returns them as records. A snapshot
 * cut into several batches is finished before another table is read, so with {@code
 * transaction.boundary=connector} each snapshot becomes exactly one Kafka transaction.
 */
public final class ChangelakeSourceTask extends SourceTask {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelakeSourceTask.class);

  /** Task config key holding the task's tables, set by the connector. */
  static final String TASK_TABLES = "task.tables";

  private final Object sleeper = new Object();
  private volatile boolean stopping;

  private ChangelakeSourceConfig config;
  private String connectorName;
  private Catalog catalog;
  private TransactionContext transactions;
  private final List<TableReader> readers = new ArrayList<>();
  private final Map<Map<String, Object>, TableReader> readersByPartition = new HashMap<>();
  private int nextReader;

  /** The reader in the middle of a snapshot: polled again until the snapshot ends. */
  private TableReader unfinished;

  @Override
  public String version() {
    return Versions.CONNECTOR_VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    config = new ChangelakeSourceConfig(props);
    connectorName = props.getOrDefault("name", "changelake-source");
    transactions = context.transactionContext();
    catalog = LakeCatalogs.open(props);
    ChangeRecords.Settings settings =
        new ChangeRecords.Settings(
            connectorName,
            config.recordFormat(),
            config.flatOpField(),
            config.tombstonesOnDelete());
    String consumerPrefix = config.consumerIdPrefix(connectorName);
    for (TableAssignment assignment : TableAssignment.decode(props.get(TASK_TABLES))) {
      FileStoreTable table;
      try {
        table = (FileStoreTable) catalog.getTable(assignment.table());
      } catch (Catalog.TableNotExistException e) {
        // dropped since the connector listed it; its next discovery round reassigns the tasks
        LOG.warn("Table {} no longer exists; not publishing it", assignment.table());
        continue;
      }
      Map<String, Object> partition = SourceOffsets.partition(assignment);
      Optional<ReaderPosition> restored =
          SourceOffsets.parseOffset(partition, context.offsetStorageReader().offset(partition));
      String consumerId =
          assignment.buckets().isAll()
              ? consumerPrefix
              : consumerPrefix + "-b" + assignment.buckets().encode().replace(',', '_');
      String topic = topicFor(assignment);
      ChangelogReader reader;
      try {
        reader =
            new ChangelogReader(
                table,
                consumerId,
                assignment.buckets().buckets(),
                config.startPosition(),
                restored,
                config.batchSize());
      } catch (PositionExpiredException e) {
        throw new ConnectException(expiredMessage(assignment, topic, e), e);
      }
      TableReader tableReader =
          new TableReader(
              assignment,
              partition,
              reader,
              new ChangeRecords(assignment.table(), topic, table.primaryKeys(), settings));
      readers.add(tableReader);
      readersByPartition.put(partition, tableReader);
      LOG.info(
          "Publishing {} (buckets {}) to topic {} from {}",
          assignment.table(),
          assignment.buckets().encode(),
          topic,
          restored.map(Object::toString).orElse("start position " + config.startPosition()));
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
    synchronized (this) {
      if (stopping) {
        return null;
      }
      for (TableReader reader : readers) {
        reader.applyCheckpoint();
      }
      for (int tried = 0; tried < readers.size(); tried++) {
        TableReader reader =
            unfinished != null ? unfinished : readers.get(nextReader++ % readers.size());
        Optional<ChangeBatch> batch = reader.poll();
        if (batch.isEmpty()) {
          unfinished = null;
          continue;
        }
        List<SourceRecord> records = reader.toRecords(batch.get());
        if (batch.get().endOfSnapshot()) {
          unfinished = null;
          endTransaction(reader, records);
        } else {
          unfinished = reader;
          reader.snapshotHasRecords |= !records.isEmpty();
        }
        if (!records.isEmpty()) {
          return records;
        }
        if (unfinished != null) {
          tried--; // the same snapshot continues: not another table's turn yet
        }
      }
    }
    synchronized (sleeper) {
      if (!stopping) {
        sleeper.wait(config.pollInterval().toMillis());
      }
    }
    return null;
  }

  /** Commits the Kafka transaction at the end of a snapshot (transaction.boundary=connector). */
  private void endTransaction(TableReader reader, List<SourceRecord> records) {
    boolean earlierRecords = reader.snapshotHasRecords;
    reader.snapshotHasRecords = false;
    if (transactions == null) {
      return;
    }
    if (!records.isEmpty()) {
      transactions.commitTransaction(records.get(records.size() - 1));
    } else if (earlierRecords) {
      // the snapshot's last batch had nothing for us: close what its earlier batches opened
      transactions.commitTransaction();
    }
  }

  @Override
  public void commitRecord(SourceRecord record, RecordMetadata metadata) {
    TableReader reader = readersByPartition.get(record.sourcePartition());
    if (reader != null && metadata != null) {
      reader.acknowledged(record.sourceOffset());
    }
  }

  @Override
  public void commit() {
    for (TableReader reader : readers) {
      reader.offsetsFlushed();
    }
  }

  @Override
  public void stop() {
    stopping = true;
    synchronized (sleeper) {
      sleeper.notifyAll();
    }
    synchronized (this) {
      RuntimeException failure = null;
      for (TableReader reader : readers) {
        try {
          reader.close();
        } catch (RuntimeException e) {
          failure = e;
        }
      }
      readers.clear();
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

  /** One table (or bucket set) of this task: its reader, record factory and checkpoints. */
  private final class TableReader {
    private final TableAssignment assignment;
    private final Map<String, Object> partition;
    private final ChangelogReader reader;
    private final ChangeRecords records;
    private boolean snapshotHasRecords;

    /** Newest position Kafka acknowledged (producer callback thread). */
    private volatile ReaderPosition acknowledged;

    /** Position to hand to the Paimon consumer on the task thread, once offsets are flushed. */
    private volatile ReaderPosition flushed;

    TableReader(
        TableAssignment assignment,
        Map<String, Object> partition,
        ChangelogReader reader,
        ChangeRecords records) {
      this.assignment = assignment;
      this.partition = partition;
      this.reader = reader;
      this.records = records;
    }

    Optional<ChangeBatch> poll() {
      try {
        return reader.poll();
      } catch (PositionExpiredException e) {
        throw new ConnectException(expiredMessage(assignment, records.topic(), e), e);
      }
    }

    List<SourceRecord> toRecords(ChangeBatch batch) {
      List<SourceRecord> out = new ArrayList<>(batch.changes().size() + 1);
      List<ChangeRow> changes = batch.changes();
      for (int i = 0; i < changes.size(); i++) {
        ChangeRow change = changes.get(i);
        String snapshotFlag = "false";
        if (change.position().fullState()) {
          snapshotFlag = batch.endOfSnapshot() && i == changes.size() - 1 ? "last" : "true";
        }
        records.append(
            batch, change, snapshotFlag, partition, SourceOffsets.offset(change.position()), out);
      }
      return out;
    }

    void acknowledged(Map<String, ?> offset) {
      SourceOffsets.parseOffset(partition, offset)
          .filter(position -> acknowledged == null || isAfter(position, acknowledged))
          .ifPresent(position -> acknowledged = position);
    }

    void offsetsFlushed() {
      flushed = acknowledged;
    }

    void applyCheckpoint() {
      ReaderPosition position = flushed;
      if (position != null) {
        flushed = null;
        reader.checkpoint(position);
      }
    }

    void close() {
      reader.close();
    }
  }

  private String expiredMessage(
      TableAssignment assignment, String topic, PositionExpiredException e) {
    String partitionJson =
        "{\"database\": \""
            + assignment.table().getDatabaseName()
            + "\", \"table\": \""
            + assignment.table().getObjectName()
            + "\", \"buckets\": \""
            + assignment.buckets().encode()
            + "\"}";
    return "Table "
        + assignment.table().getFullName()
        + " (buckets "
        + assignment.buckets().encode()
        + ", topic "
        + topic
        + "): the stored position can no longer be read because Paimon expired its snapshot ("
        + e.getMessage()
        + "). Changes between that position and the oldest snapshot are gone from the table."
        + " To go on, stop the connector (PUT /connectors/"
        + connectorName
        + "/stop) and either delete its offsets (DELETE /connectors/"
        + connectorName
        + "/offsets: every table starts again from start.position) or move this table to a"
        + " snapshot that still exists (PATCH /connectors/"
        + connectorName
        + "/offsets with {\"offsets\": [{\"partition\": "
        + partitionJson
        + ", \"offset\": {\"snapshot_id\": <id>, \"row_offset\": 0, \"full_state\": false}}]},"
        + " or \"offset\": null to reset only this table), then resume it (PUT /connectors/"
        + connectorName
        + "/resume). Keep the connector's Paimon consumer ('consumer.id') or retain snapshots"
        + " longer to avoid this.";
  }

  /** Positions grow by snapshot; a snapshot's full-state read comes before its changes. */
  private static boolean isAfter(ReaderPosition a, ReaderPosition b) {
    if (a.snapshotId() != b.snapshotId()) {
      return a.snapshotId() > b.snapshotId();
    }
    if (a.fullState() != b.fullState()) {
      return !a.fullState();
    }
    return a.rowOffset() > b.rowOffset();
  }
}
