package io.changelake.testkit;

import io.changelake.schema.debezium.DebeziumOp;
import java.util.Optional;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * One change of a {@link DebeziumTable}, rendered in any {@link InputShape}: as the {@link
 * SinkRecord} a sink task is given, or as the JSON bytes (JsonConverter, schemas on) a topic holds.
 *
 * @param op the operation; null for Debezium's tombstone
 * @param key the key struct; null for a truncate and for tables without primary key
 * @param lsn the PostgreSQL LSN of the change
 * @param sourceTsMs when the database made the change ({@code source.ts_ms})
 * @param sequence the source block's {@code sequence} ({@code ["<last commit LSN>","<LSN>"]}), or
 *     null
 */
public record Change(
    DebeziumTable table,
    DebeziumOp op,
    Struct key,
    Struct before,
    Struct after,
    long lsn,
    long sourceTsMs,
    String sequence) {

  /** The same change at another LSN (to replay or reorder a WAL). */
  public Change atLsn(long lsn) {
    return new Change(table, op, key, before, after, lsn, sourceTsMs, sequence);
  }

  /** The same change with another source timestamp. */
  public Change atSourceTsMs(long tsMs) {
    return new Change(table, op, key, before, after, lsn, tsMs, sequence);
  }

  /**
   * The same change with {@code source.sequence} set as PostgreSQL's connector does: the LSN of the
   * last commit before it, and its own.
   */
  public Change withSequence(long lastCommitLsn) {
    return new Change(
        table,
        op,
        key,
        before,
        after,
        lsn,
        sourceTsMs,
        "[\"" + lastCommitLsn + "\",\"" + lsn + "\"]");
  }

  public boolean isTombstone() {
    return op == null;
  }

  /** The Debezium envelope value; null for a tombstone. */
  public Struct envelope() {
    return table.envelope(this);
  }

  /** The {@code source} block. */
  public Struct source() {
    return table.source(this);
  }

  /**
   * This change as a sink receives it in {@code shape}, on partition {@code partition} of the
   * table's topic at {@code offset}; empty when {@code ExtractNewRecordState} drops it (Debezium's
   * tombstones). A truncate stays an envelope in every shape: the transform would drop it, so
   * pipelines let it pass with a predicate (the sink's {@code IsTruncate}).
   */
  public Optional<SinkRecord> sinkRecord(InputShape shape, int partition, long offset) {
    return sinkRecord(shape, partition, offset, sourceTsMs + 10);
  }

  /**
   * As {@link #sinkRecord(InputShape, int, long)} with the given Kafka record timestamp (by default
   * 10 ms after the source timestamp).
   */
  public Optional<SinkRecord> sinkRecord(
      InputShape shape, int partition, long offset, long timestamp) {
    return Flattening.of(this, shape)
        .map(
            value ->
                new SinkRecord(
                    table.topic(),
                    partition,
                    key == null ? null : table.keySchema(),
                    key,
                    value.schema(),
                    value.value(),
                    offset,
                    timestamp,
                    TimestampType.CREATE_TIME));
  }

  /**
   * As {@link #sinkRecord(InputShape, int, long)} for a change every shape keeps (anything but a
   * tombstone).
   *
   * @throws IllegalStateException for a change the shape drops
   */
  public SinkRecord toSinkRecord(InputShape shape, int partition, long offset) {
    return toSinkRecord(shape, partition, offset, sourceTsMs + 10);
  }

  /** As {@link #toSinkRecord(InputShape, int, long)} with the given Kafka record timestamp. */
  public SinkRecord toSinkRecord(InputShape shape, int partition, long offset, long timestamp) {
    return sinkRecord(shape, partition, offset, timestamp)
        .orElseThrow(
            () -> new IllegalStateException(shape + " drops " + this + "; use sinkRecord()"));
  }

  /** As a sink receives it in {@code shape} on partition 0. */
  public SinkRecord toSinkRecord(InputShape shape, long offset) {
    return toSinkRecord(shape, 0, offset);
  }

  /**
   * The bytes a topic holds for this change in {@code shape} (JsonConverter with schemas on, as
   * Debezium's connector or the transform writes them); empty when the shape drops it.
   */
  public Optional<JsonRecord> json(InputShape shape) {
    return Flattening.of(this, shape)
        .map(
            value ->
                new JsonRecord(
                    table.topic(),
                    key == null
                        ? null
                        : JsonRecord.KEYS.bytes(table.topic(), table.keySchema(), key),
                    JsonRecord.VALUES.bytes(table.topic(), value.schema(), value.value())));
  }

  /** A value and its schema (both null for Debezium's tombstone). */
  record Value(Schema schema, Struct value) {}
}
