package io.changelake.source;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.PositionExpiredException;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.lsm.changelog.StartPosition;
import io.changelake.lsm.changelog.TruncateBarrier;
import io.changelake.lsm.changelog.UnreadableSnapshotException;
import io.changelake.source.assign.TableAssignment;
import io.changelake.source.metrics.SourceTableMetrics;
import io.changelake.source.offset.AcknowledgedPositions;
import io.changelake.source.offset.SourceOffsets;
import io.changelake.source.record.ChangeRecords;
import io.changelake.source.record.PublishedRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one table (or a bucket set of it) for a task: reads its changelog, turns changes into
 * records and hands acknowledged positions back to the reader's Paimon consumer. The reader follows
 * the table's schema changes itself (each batch carries the schema it was read with). Every bucket
 * has its own source partition ({@link SourceOffsets}), so acknowledgements are tracked per bucket:
 * a bucket's offset never runs ahead of what Kafka acknowledged of that bucket without a gap.
 *
 * <p>Threads: the reader is used only by the task's read-ahead thread ({@link #poll}, {@link
 * #build}, {@link #applyCheckpoint}) while it runs, and by the task thread only while it does not
 * ({@link #discardReader}, {@link #close}); {@link #handOver} runs on the task thread, {@link
 * #acknowledged} on the producer's, {@link #offsetsFlushed} on the offset committer's.
 */
final class TablePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TablePublisher.class);
  private final TableAssignment assignment;

  /** Source partition per bucket key. */
  private final Map<Integer, Map<String, Object>> partitions = new HashMap<>();

  /** The bucket key a truncate's record belongs to. */
  private final int truncateKey;

  private final TruncateBarrier barrier;
  private final ChangeRecords records;
  private final Reading reading;
  private final FileStoreTable table;
  private final SourceTableMetrics metrics;
  // whether the snapshot being published has produced records so far
  private boolean snapshotHasRecords;
  // null after a failure: the next poll opens a new one just after the last change returned
  private ChangelogReader reader;

  /** Where a reader opened after a failure resumes, per bucket key (empty: the start position). */
  private Map<Integer, ReaderPosition> resumeFrom;

  /** Per bucket key, the position after the last change (or truncate) turned into records. */
  private final Map<Integer, ReaderPosition> returned = new HashMap<>();

  /** Per bucket key, what Kafka acknowledged without a gap (producer callback thread). */
  private final Map<Integer, AcknowledgedPositions> acknowledged = new ConcurrentHashMap<>();

  /** Why this table is no longer published by this task, or null while it is. */
  private volatile UnreadableSnapshotException failure;

  /** Positions to hand to the Paimon consumer on the task thread, once offsets are flushed. */
  private volatile Map<Integer, ReaderPosition> flushed;

  TablePublisher(
      TableAssignment assignment,
      FileStoreTable table,
      ChangeRecords records,
      Reading reading,
      Map<Integer, ReaderPosition> restored,
      SourceTableMetrics metrics,
      TruncateBarrier barrier) {
    this.assignment = assignment;
    this.metrics = metrics;
    this.barrier = barrier;
    Set<Integer> keys =
        assignment.buckets().isAll()
            ? Set.of(ChangelogReader.ALL_BUCKETS)
            : assignment.buckets().buckets();
    for (int key : keys) {
      partitions.put(key, SourceOffsets.partition(assignment.table(), key));
      acknowledged.put(key, new AcknowledgedPositions());
    }
    this.truncateKey =
        assignment.buckets().isAll()
            ? ChangelogReader.ALL_BUCKETS
            : ChangelogReader.TRUNCATE_BUCKET;
    this.records = records;
    this.reading = reading;
    this.table = table;
    this.resumeFrom = restored;
    this.reader = open(restored);
  }

  /**
   * How this publisher's readers read, whichever opens them (the first or one after a failure): the
   * consumer id they register under (before the bucket suffix), where a bucket without a restored
   * position starts, and the changes per batch.
   */
  record Reading(String consumerId, StartPosition start, int batchSize) {}

  private ChangelogReader open(Map<Integer, ReaderPosition> restored) {
    try {
      ChangelogReader opened =
          new ChangelogReader(
              table,
              reading.consumerId(),
              assignment.buckets().buckets(),
              reading.start(),
              restored,
              reading.batchSize());
      opened.truncateBarrier(barrier);
      return opened;
    } catch (PositionExpiredException e) {
      throw new ConnectException(expiredMessage(e), e);
    }
  }

  /** The source partitions of this publisher's buckets. */
  Collection<Map<String, Object>> partitions() {
    return partitions.values();
  }

  /** The Paimon consumer id of this publisher's reader. */
  String consumerId() {
    return ChangelogReader.consumerIdFor(reading.consumerId(), assignment.buckets().buckets());
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
      // stopped: the metrics show the table falling behind from the snapshot it could not read
      metrics.position(failure.snapshotId(), table.snapshotManager().latestSnapshotId());
      return Optional.empty();
    }
    if (reader == null) {
      reader = open(resumeFrom);
    }
    try {
      Optional<ChangeBatch> batch = reader.poll();
      if (batch.isEmpty()) {
        metrics.position(
            reader.position().snapshotId(), table.snapshotManager().latestSnapshotId());
      } else if (batch.get().endOfSnapshot()) {
        metrics.position(batch.get().snapshotId() + 1, table.snapshotManager().latestSnapshotId());
      }
      return batch;
    } catch (PositionExpiredException e) {
      throw new ConnectException(expiredMessage(e), e);
    } catch (UnreadableSnapshotException e) {
      failure = e;
      metrics.stopped(true);
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
        + ", source partitions "
        + partitions.values()
        + "): "
        + failure.getMessage()
        + ". Nothing of this table after the last published change is lost: once the table is"
        + " fixed, restart the task (POST /connectors/"
        + records.connectorName()
        + "/tasks/<id>/restart) and it resumes there; to skip the snapshot instead, stop the"
        + " connector and PATCH /connectors/"
        + records.connectorName()
        + "/offsets for each of these partitions to {\"snapshot_id\": "
        + (failure.snapshotId() + 1)
        + ", \"row_offset\": 0, \"full_state\": false}. The task's other tables go on.";
  }

  /**
   * The records of one batch, each carrying the offset just after its change (read-ahead thread).
   * Nothing is counted as published until {@link #handOver}.
   */
  ReadyBatch build(ChangeBatch batch) {
    List<ChangeRow> changes = batch.changes();
    int capacity = changes.size() + 2;
    List<SourceRecord> out = new ArrayList<>(capacity);
    int[] keys = new int[capacity];
    ReaderPosition[] positions = new ReaderPosition[capacity];
    if (batch.truncates()) {
      records.appendTruncate(
          batch, partitions.get(truncateKey), SourceOffsets.offset(batch.truncatePosition()), out);
      keys[0] = truncateKey;
      positions[0] = batch.truncatePosition();
    }
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
          partitions.get(change.bucket()),
          SourceOffsets.offset(change.position()),
          out);
      if (out.size() > keys.length) {
        keys = Arrays.copyOf(keys, out.size() * 2);
        positions = Arrays.copyOf(positions, out.size() * 2);
      }
      for (int added = before; added < out.size(); added++) {
        keys[added] = change.bucket(); // the event, and its tombstone if any
        positions[added] = change.position();
      }
    }
    return new ReadyBatch(batch.snapshotId(), batch.endOfSnapshot(), out, keys, positions);
  }

  /**
   * Connect gets the records of {@code ready} now (task thread): from here on they are in flight,
   * and a reader opened after a failure resumes after them.
   */
  List<SourceRecord> handOver(ReadyBatch ready) {
    List<SourceRecord> out = ready.records();
    for (int i = 0; i < out.size(); i++) {
      int key = ready.keys()[i];
      AcknowledgedPositions.Ticket ticket = acknowledged.get(key).dispatched(ready.positions()[i]);
      if (out.get(i) instanceof PublishedRecord published) {
        published.ticket(ticket);
      }
      returned.put(key, ready.positions()[i]);
    }
    metrics.recordsOut(out.size());
    snapshotHasRecords |= !out.isEmpty();
    if (ready.endOfSnapshot()) {
      metrics.snapshotDone(ready.snapshotId(), snapshotHasRecords);
      snapshotHasRecords = false;
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
    resumeFrom = reader.resumePositions(returned);
    try {
      reader.close();
    } catch (RuntimeException e) {
      LOG.debug("Closing the reader of {} after a failure failed too", assignment.table(), e);
    }
    reader = null;
  }

  /**
   * Connect is done with a record of this publisher (sent, or dropped by a transformation), of the
   * bucket named by its source partition. Records handed over carry their ticket ({@link
   * PublishedRecord}), which the task acknowledges directly; this is for one that does not.
   */
  void acknowledged(Map<String, ?> partition, Map<String, ?> offset) {
    for (Map.Entry<Integer, Map<String, Object>> entry : partitions.entrySet()) {
      if (entry.getValue().equals(partition)) {
        acknowledged
            .get(entry.getKey())
            .acknowledged(SourceOffsets.parseOffset(partition, offset).orElseThrow());
        return;
      }
    }
  }

  /** Connect has stored the offsets of every acknowledged record. */
  void offsetsFlushed() {
    Map<Integer, ReaderPosition> positions = new HashMap<>();
    acknowledged.forEach(
        (key, positionsOfKey) ->
            positionsOfKey.contiguous().ifPresent(position -> positions.put(key, position)));
    if (!positions.isEmpty()) {
      flushed = Map.copyOf(positions);
    }
  }

  /** Lets Paimon expire what is durable in Kafka and its offsets (task thread). */
  void applyCheckpoint() {
    Map<Integer, ReaderPosition> positions = flushed;
    if (positions != null && reader != null) {
      flushed = null;
      reader.checkpoint(positions);
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
        SourceOffsets.partitionJson(assignment.table(), partitions.keySet().iterator().next());
    return "Table "
        + assignment.table().getFullName()
        + " (buckets "
        + assignment.buckets().encode()
        + ", topic "
        + records.topic()
        + "): the stored position can no longer be read because Paimon expired its snapshot ("
        + e.getMessage()
        + "). To go on, stop the connector (PUT /connectors/"
        + records.connectorName()
        + "/stop) and either delete its offsets (DELETE /connectors/"
        + records.connectorName()
        + "/offsets: every table starts again from start.position) or move this table to a"
        + " snapshot that still exists (PATCH /connectors/"
        + records.connectorName()
        + "/offsets with {\"offsets\": [{\"partition\": "
        + partitionJson
        + ", \"offset\": {\"snapshot_id\": <id>, \"row_offset\": 0, \"full_state\": false}},"
        + " ... one entry per bucket]}, or \"offset\": null to reset a bucket), then resume it"
        + " (PUT /connectors/"
        + records.connectorName()
        + "/resume). Keep the connector's Paimon consumer ('consumer.id') or retain snapshots"
        + " longer to avoid this.";
  }
}
