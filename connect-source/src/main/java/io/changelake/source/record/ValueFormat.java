package io.changelake.source.record;

import io.changelake.schema.debezium.DebeziumOp;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.InternalRow;

/** The shape of record values: Debezium's envelope or a flat row. Built per table schema. */
sealed interface ValueFormat permits EnvelopeFormat, FlatFormat {

  Schema schema();

  /**
   * The value of one change.
   *
   * @param before the old row, null when unknown or for inserts
   * @param after the new row, null for deletes
   * @param source the {@link SourceInfo} block as a struct (shared by the records of a batch)
   * @param tsMs {@code ts_ms}, boxed once per millisecond by the caller for all its records
   */
  Struct value(DebeziumOp op, InternalRow before, InternalRow after, Struct source, Long tsMs);
}
