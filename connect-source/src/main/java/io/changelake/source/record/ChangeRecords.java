package io.changelake.source.record;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.table.InternalColumns;
import io.changelake.schema.debezium.DebeziumOp;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

/**
 * Turns the changes of one table into Kafka records. The schemas follow the row type each batch was
 * read with, so a column added to the table shows up in the next records without a restart.
 */
public final class ChangeRecords {

  /**
   * How records look, the same for every table of a connector.
   *
   * @param connectorName goes into {@code source.name}
   * @param format envelope or flat values
   * @param flatOpField the operation field of flat values
   * @param tombstones whether a delete is followed by a tombstone
   */
  public record Settings(
      String connectorName, RecordFormat format, String flatOpField, boolean tombstones) {}

  private final Identifier table;
  private final String topic;
  private final List<String> primaryKeys;
  private final Settings settings;

  private RowType rowType;
  private StructMapper keys;
  private ValueFormat values;

  // the source block of the last records: built per snapshot and flag (see source()); the batch
  // itself is not kept, its rows would stay alive with it
  private long sourceSnapshot = -1;
  private String sourceCommitKind;
  private String sourceFlag;
  private Struct sourceStruct;

  // the time of the last records, boxed once for all records of the same millisecond (see now())
  private Long now;

  public ChangeRecords(
      Identifier table, String topic, List<String> primaryKeys, Settings settings) {
    this.table = table;
    this.topic = topic;
    this.primaryKeys =
        primaryKeys.stream().filter(name -> !InternalColumns.isInternal(name)).toList();
    this.settings = settings;
  }

  public String topic() {
    return topic;
  }

  /** The connector the records are published by ({@link Settings#connectorName}). */
  public String connectorName() {
    return settings.connectorName();
  }

  /**
   * Appends the records of one change to {@code out}: one event, and a tombstone after a delete
   * when configured.
   *
   * @param batch the batch holding the change (its snapshot and row type)
   * @param change the change
   * @param fullState whether the change is a row of the full-state read (op {@code r})
   * @param snapshotFlag {@code source.snapshot}: true, last or false
   * @param sourcePartition the Connect source partition of the reader
   * @param sourceOffset the Connect offset just after this change
   */
  public void append(
      ChangeBatch batch,
      ChangeRow change,
      boolean fullState,
      String snapshotFlag,
      Map<String, ?> sourcePartition,
      Map<String, ?> sourceOffset,
      List<SourceRecord> out) {
    useRowType(batch.rowType());
    DebeziumOp op = opOf(change, fullState);
    InternalRow before = change.before();
    InternalRow after = change.after();
    if (op == DebeziumOp.DELETE && before == null) {
      // a lone -U or a -D carries its row in whichever field the reader filled
      before = after;
      after = null;
    }
    InternalRow keyRow = after != null ? after : before;
    Struct key = keys == null ? null : keys.toStruct(keyRow);
    Long now = now();
    Struct value = values.value(op, before, after, source(batch, snapshotFlag), now);
    out.add(
        record(
            sourcePartition, sourceOffset, keys == null ? null : keys.schema(), key, value, now));
    if (op == DebeziumOp.DELETE
        && settings.tombstones()
        && key != null
        && change.kind() == org.apache.paimon.types.RowKind.DELETE) {
      out.add(record(sourcePartition, sourceOffset, keys.schema(), key, null, now));
    }
  }

  /**
   * Appends the record of a truncate, as Debezium publishes one: no key, {@code op=t}, no rows (in
   * the flat format every column null and the operation field {@code t}).
   *
   * @param batch the batch the truncate starts (its snapshot and row type)
   * @param sourcePartition the Connect source partition of the reader
   * @param sourceOffset the Connect offset just after the truncate
   */
  public void appendTruncate(
      ChangeBatch batch,
      Map<String, ?> sourcePartition,
      Map<String, ?> sourceOffset,
      List<SourceRecord> out) {
    useRowType(batch.rowType());
    Struct source = source(batch, "false");
    Long now = now();
    out.add(
        record(
            sourcePartition,
            sourceOffset,
            null,
            null,
            values.value(DebeziumOp.TRUNCATE, null, null, source, now),
            now));
  }

  /** A record of the table's topic, partition chosen by the producer; a null value: a tombstone. */
  private PublishedRecord record(
      Map<String, ?> sourcePartition,
      Map<String, ?> sourceOffset,
      Schema keySchema,
      Struct key,
      Struct value,
      Long now) {
    return new PublishedRecord(
        sourcePartition,
        sourceOffset,
        topic,
        keySchema,
        key,
        value == null ? null : values.schema(),
        value,
        now);
  }

  /**
   * The operation of a change. A {@code -U} without its {@code +U} (the table's changelog producer
   * did not pair them) retracts the old row, so consumers see it as a delete; the {@code +U} that
   * follows re-creates the row.
   */
  static DebeziumOp opOf(ChangeRow change, boolean fullState) {
    return switch (change.kind()) {
      case INSERT -> fullState ? DebeziumOp.READ : DebeziumOp.CREATE;
      case UPDATE_AFTER -> fullState ? DebeziumOp.READ : DebeziumOp.UPDATE;
      case UPDATE_BEFORE, DELETE -> DebeziumOp.DELETE;
    };
  }

  /**
   * The source block of the records of {@code batch} with {@code snapshotFlag}: the same struct for
   * all of them (it only changes with the snapshot and the flag), not one per record.
   */
  private Struct source(ChangeBatch batch, String snapshotFlag) {
    if (batch.snapshotId() != sourceSnapshot
        || !Objects.equals(batch.commitKind(), sourceCommitKind)
        || !snapshotFlag.equals(sourceFlag)) {
      sourceStruct =
          new SourceInfo(
                  settings.connectorName(),
                  table.getDatabaseName(),
                  table.getObjectName(),
                  batch.snapshotId(),
                  batch.commitKind(),
                  snapshotFlag)
              .toStruct();
      sourceSnapshot = batch.snapshotId();
      sourceCommitKind = batch.commitKind();
      sourceFlag = snapshotFlag;
    }
    return sourceStruct;
  }

  /**
   * The current time for {@code ts_ms} and the record's timestamp: the same value as before, but
   * boxed once per millisecond instead of twice per record (thousands of records share one).
   */
  private Long now() {
    long millis = System.currentTimeMillis();
    if (now == null || now != millis) {
      now = millis;
    }
    return now;
  }

  private void useRowType(RowType newRowType) {
    // batches of one schema share their row type: identity first, deep equality per change is
    // costly
    if (newRowType == rowType || newRowType.equals(rowType)) {
      return;
    }
    List<String> columns =
        newRowType.getFields().stream()
            .map(DataField::name)
            .filter(name -> !InternalColumns.isInternal(name))
            .toList();
    keys =
        primaryKeys.isEmpty()
            ? null
            : new StructMapper(newRowType, primaryKeys, topic + ".Key", false);
    StructMapper rows = new StructMapper(newRowType, columns, topic + ".Value", true);
    values =
        switch (settings.format()) {
          case ENVELOPE -> EnvelopeFormat.of(topic, rows);
          case FLAT -> FlatFormat.of(topic, rows, settings.flatOpField());
        };
    rowType = newRowType;
  }
}
