package io.changelake.source;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.PositionExpiredException;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.lsm.changelog.StartPosition;
import io.changelake.source.assign.TableAssignment;
import io.changelake.source.offset.SourceOffsets;
import io.changelake.source.record.ChangeRecords;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one table (or a bucket set of it) for a task: reads its changelog, turns changes into
 * records, follows schema changes and hands acknowledged positions back to the reader's Paimon
 * consumer. Used from the task thread only, except {@link #acknowledged} and {@link
 * #offsetsFlushed}.
 */
final class TablePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TablePublisher.class);
  private static final Comparator<ReaderPosition> ORDER =
      Comparator.comparingLong(ReaderPosition::snapshotId)
          .thenComparing(ReaderPosition::fullState)
          .thenComparingLong(ReaderPosition::rowOffset);

  private final TableAssignment assignment;
  private final Map<String, Object> partition;
  private final ChangeRecords records;
  private final String consumerId;
  private final int batchSize;
  private final String connectorName;
  private FileStoreTable table;
  // null after a failure: the next poll opens a new one just after the last change returned
  private ChangelogReader reader;
  private final StartPosition start;
  private Optional<ReaderPosition> resumeFrom;

  /**
   * True until the full-state read ends. The reader's first snapshot is the full state exactly when
   * it starts with {@code FullThenChanges} or resumes inside a full-state read; positions cannot
   * tell (the position after the last row of the full state is the next snapshot's start).
   */
  private boolean fullPhase;

  /** True when the next batch begins a snapshot. */
  private boolean atSnapshotStart = true;

  /** True while the current snapshot has produced records (its transaction is open). */
  boolean snapshotHasRecords;

  /** Newest position Kafka acknowledged (producer callback thread). */
  private volatile ReaderPosition acknowledged;

  /** Position to hand to the Paimon consumer on the task thread, once offsets are flushed. */
  private volatile ReaderPosition flushed;

  TablePublisher(
      TableAssignment assignment,
      FileStoreTable table,
      ChangeRecords records,
      String connectorName,
      String consumerId,
      StartPosition start,
      Optional<ReaderPosition> restored,
      int batchSize) {
    this.assignment = assignment;
    this.partition = SourceOffsets.partition(assignment);
    this.records = records;
    this.connectorName = connectorName;
    this.consumerId = consumerId;
    this.batchSize = batchSize;
    this.table = table;
    this.fullPhase =
        restored
            .map(ReaderPosition::fullState)
            .orElse(start instanceof StartPosition.FullThenChanges);
    this.start = start;
    this.resumeFrom = restored;
    this.reader = open(start, restored);
  }

  private ChangelogReader open(StartPosition start, Optional<ReaderPosition> restored) {
    try {
      return new ChangelogReader(
          table, consumerId, assignment.buckets().buckets(), start, restored, batchSize);
    } catch (PositionExpiredException e) {
      throw new ConnectException(expiredMessage(e), e);
    }
  }

  Map<String, Object> partition() {
    return partition;
  }

  String topic() {
    return records.topic();
  }

  /**
   * The next batch of the changelog, or empty when the table has nothing new. A reader reads with
   * the schema it was opened on; a snapshot written with a newer schema is read again from its
   * start by a reader on the latest schema, so its events carry the added columns.
   */
  Optional<ChangeBatch> poll() {
    Optional<ChangeBatch> batch = readerPoll();
    if (batch.isPresent() && atSnapshotStart && !fullPhase) {
      long snapshotId = batch.get().snapshotId();
      long writtenWith = schemaIdOf(snapshotId);
      if (writtenWith > table.schema().id()) {
        reopenOnLatestSchema(new ReaderPosition(snapshotId, 0, false));
        batch = readerPoll();
      }
    }
    batch.ifPresent(b -> atSnapshotStart = b.endOfSnapshot());
    return batch;
  }

  private Optional<ChangeBatch> readerPoll() {
    if (reader == null) {
      reader = open(start, resumeFrom);
    }
    try {
      return reader.poll();
    } catch (PositionExpiredException e) {
      throw new ConnectException(expiredMessage(e), e);
    }
  }

  private long schemaIdOf(long snapshotId) {
    try {
      return table.snapshotManager().snapshot(snapshotId).schemaId();
    } catch (RuntimeException e) {
      // the snapshot expired while its changelog is kept (changelog.num-retained): use the latest
      return table.copyWithLatestSchema().schema().id();
    }
  }

  private void reopenOnLatestSchema(ReaderPosition at) {
    FileStoreTable latest = table.copyWithLatestSchema();
    LOG.info(
        "Table {} changed to schema {} {}; reading on from {}",
        assignment.table(),
        latest.schema().id(),
        latest.rowType(),
        at);
    reader.close();
    table = latest;
    // the start position does not matter when restoring
    reader = open(new StartPosition.Latest(), Optional.of(at));
  }

  /** The records of one batch, each carrying the offset just after its change. */
  List<SourceRecord> toRecords(ChangeBatch batch) {
    List<SourceRecord> out = new ArrayList<>(batch.changes().size() + 1);
    List<ChangeRow> changes = batch.changes();
    for (int i = 0; i < changes.size(); i++) {
      ChangeRow change = changes.get(i);
      boolean full = fullPhase || change.position().fullState();
      String snapshotFlag = "false";
      if (full) {
        boolean last = batch.endOfSnapshot() && i == changes.size() - 1;
        snapshotFlag = last ? "last" : "true";
      }
      records.append(
          batch,
          change,
          full,
          snapshotFlag,
          partition,
          SourceOffsets.offset(change.position()),
          out);
    }
    if (batch.endOfSnapshot()) {
      fullPhase = false;
    }
    if (!changes.isEmpty()) {
      resumeFrom = Optional.of(changes.get(changes.size() - 1).position());
    }
    return out;
  }

  /**
   * Drops the reader after a failure that may have left it anywhere inside a read: the next {@link
   * #poll} reads on just after the last change turned into records, so nothing is skipped or
   * published twice.
   */
  void discardReader() {
    if (reader == null) {
      return;
    }
    try {
      reader.close();
    } catch (RuntimeException e) {
      LOG.debug("Closing the reader of {} after a failure failed too", assignment.table(), e);
    }
    reader = null;
  }

  void acknowledged(Map<String, ?> offset) {
    SourceOffsets.parseOffset(partition, offset)
        .filter(position -> acknowledged == null || ORDER.compare(position, acknowledged) > 0)
        .ifPresent(position -> acknowledged = position);
  }

  /** Connect has stored the offsets of every acknowledged record. */
  void offsetsFlushed() {
    flushed = acknowledged;
  }

  /** Lets Paimon expire what is durable in Kafka and its offsets (task thread). */
  void applyCheckpoint() {
    ReaderPosition position = flushed;
    if (position != null && reader != null) {
      flushed = null;
      reader.checkpoint(position);
    }
  }

  @Override
  public void close() {
    if (reader != null) {
      reader.close();
    }
  }

  private String expiredMessage(PositionExpiredException e) {
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
        + records.topic()
        + "): the stored position can no longer be read because Paimon expired its snapshot ("
        + e.getMessage()
        + "). To go on, stop the connector (PUT /connectors/"
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
}
