package io.changelake.schema;

/**
 * Connect schema names of the semantic types Debezium emits (io.debezium.time / io.debezium.data),
 * kept here as strings: this module must not depend on Debezium.
 */
final class DebeziumTypes {
  static final String DATE = "io.debezium.time.Date";
  static final String TIME = "io.debezium.time.Time";
  static final String MICRO_TIME = "io.debezium.time.MicroTime";
  static final String NANO_TIME = "io.debezium.time.NanoTime";
  static final String TIMESTAMP = "io.debezium.time.Timestamp";
  static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
  static final String NANO_TIMESTAMP = "io.debezium.time.NanoTimestamp";
  static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
  static final String ZONED_TIME = "io.debezium.time.ZonedTime";
  static final String ISO_DATE = "io.debezium.time.IsoDate";
  static final String ISO_TIME = "io.debezium.time.IsoTime";
  static final String ISO_TIMESTAMP = "io.debezium.time.IsoTimestamp";
  static final String YEAR = "io.debezium.time.Year";
  static final String MICRO_DURATION = "io.debezium.time.MicroDuration";
  static final String NANO_DURATION = "io.debezium.time.NanoDuration";
  static final String INTERVAL = "io.debezium.time.Interval";
  static final String VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal";
  static final String BITS = "io.debezium.data.Bits";

  /** Source column type and length, present with {@code column.propagate.source.type}. */
  static final String SOURCE_COLUMN_TYPE = "__debezium.source.column.type";

  static final String SOURCE_COLUMN_LENGTH = "__debezium.source.column.length";

  /** Parameter Debezium (and Avro converters) put on {@code Decimal} schemas. */
  static final String DECIMAL_PRECISION = "connect.decimal.precision";

  private DebeziumTypes() {}
}
