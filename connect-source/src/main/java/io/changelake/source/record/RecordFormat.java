package io.changelake.source.record;

/** The shape of record values, as chosen by {@code record.format}. */
public enum RecordFormat {
  /** Debezium's change envelope: before, after, source, op, ts_ms. */
  ENVELOPE,
  /** The row itself plus an operation field. */
  FLAT
}
