package io.changelake.source;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.PositionExpiredException;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.lsm.changelog.StartPosition;
import io.changelake.lsm.changelog.UnreadableSnapshotException;
import io.changelake.source.assign.TableAssignment;
import io.changelake.source.offset.AcknowledgedPositions;
import io.changelake.source.offset.SourceOffsets;
import io.changelake.source.record.ChangeRecords;
import java.util.ArrayList;
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
 * records and hands acknowledged positions back to the reader's Paimon consumer. The reader follows
 * the table's schema changes itself (each batch carries the schema it was read with). Used from the
 * task thread only, except {@link #acknowledged} and {@link #offsetsFlushed}.
 */
final class TablePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TablePublisher.class);
  private final TableAssignment assignment;
  private final Map<String, Object> partition;
  private final ChangeRecords records;
  private final String consumerId;
  private final int batchSize;
  private final String connectorName;
  private final FileStoreTable table;
  // null after a failure: the next poll opens a new one just after the last change returned
  private ChangelogReader reader;
  private final StartPosition start;
  private Optional<ReaderPosition> resumeFrom;

  /** What Kafka acknowledged without a gap (producer callback thread). */
  private final AcknowledgedPositions acknowledged = new AcknowledgedPositions();

  /** Why this table is no longer published by this task, or null while it is. */
  private UnreadableSnapshotException failure;

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
   * The next batch of the changelog, or empty when the table has nothing new.
   *
   * @throws UnreadableSnapshotException when a snapshot's rows cannot be read; the table is then
   *     {@linkplain #failure() failed} and not read again by this publisher
   */
  Optional<ChangeBatch> poll() {
    if (failure != null) {
      return Optional.empty();
    }
    if (reader == null) {
      reader = open(start, resumeFrom);
    }
    try {
      return reader.poll();
    } catch (PositionExpiredException e) {
      throw new ConnectException(expiredMessage(e), e);
    } catch (UnreadableSnapshotException e) {
      failure = e;
      throw e;
    }
  }

  /** Why this table is no longer published, if it is not. */
  Optional<UnreadableSnapshotException> failure() {
    return Optional.ofNullable(failure);
  }

  /**
   * What the task reports when it stops publishing this table: the reader's error, where the table
   * goes (topic, source partition) and how to go on.
   */
  String failureMessage() {
    return "Stopped publishing table "
        + assignment.table().getFullName()
        + " (buckets "
        + assignment.buckets().encode()
        + ", topic "
        + records.topic()
        + ", source partition "
        + partition
        + "): "
        + failure.getMessage()
        + ". Nothing of this table after the last published change is lost: once the table is"
        + " fixed, restart the task (POST /connectors/"
        + connectorName
        + "/tasks/<id>/restart) and it resumes there; to skip the snapshot instead, stop the"
        + " connector and PATCH /connectors/"
        + connectorName
        + "/offsets for this partition to {\"snapshot_id\": "
        + (failure.snapshotId() + 1)
        + ", \"row_offset\": 0, \"full_state\": false}. The task's other tables go on.";
  }

  /** The records of one batch, each carrying the offset just after its change. */
  List<SourceRecord> toRecords(ChangeBatch batch) {
    List<SourceRecord> out = new ArrayList<>(batch.changes().size() + 2);
    if (batch.truncates()) {
      records.appendTruncate(batch, partition, SourceOffsets.offset(batch.truncatePosition()), out);
      acknowledged.dispatched(batch.truncatePosition());
    }
    List<ChangeRow> changes = batch.changes();
    for (int i = 0; i < changes.size(); i++) {
      ChangeRow change = changes.get(i);
      String snapshotFlag = "false";
      if (batch.fullState()) {
        boolean last = batch.endOfSnapshot() && i == changes.size() - 1;
        snapshotFlag = last ? "last" : "true";
      }
      int before = out.size();
      records.append(
          batch,
          change,
          batch.fullState(),
          snapshotFlag,
          partition,
          SourceOffsets.offset(change.position()),
          out);
      for (int added = before; added < out.size(); added++) {
        acknowledged.dispatched(change.position()); // the event, and its tombstone if any
      }
    }
    if (!changes.isEmpty()) {
      resumeFrom = Optional.of(changes.get(changes.size() - 1).position());
    } else if (batch.truncates()) {
      resumeFrom = Optional.of(batch.truncatePosition());
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

  /** Connect is done with a record of this publisher (sent, or dropped by a transformation). */
  void acknowledged(Map<String, ?> offset) {
    acknowledged.acknowledged(SourceOffsets.parseOffset(partition, offset).orElseThrow());
  }

  /** Connect has stored the offsets of every acknowledged record. */
  void offsetsFlushed() {
    acknowledged.contiguous().ifPresent(position -> flushed = position);
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
