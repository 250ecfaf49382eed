package io.changelake.schema;

/**
 * How {@link RowConverter} treats special values.
 *
 * @param unavailableValuePlaceholder the string Debezium puts in place of a value it does not have
 *     (PostgreSQL TOASTed columns unchanged by an update, {@code unavailable.value.placeholder});
 *     string and JSON values equal to it, bytes equal to its UTF-8 bytes and arrays holding only it
 *     are reported as unavailable instead of being written. {@code null} turns the check off.
 */
public record ConversionOptions(String unavailableValuePlaceholder) {

  /** Debezium's default {@code unavailable.value.placeholder}. */
  public static final String DEBEZIUM_UNAVAILABLE_VALUE = "__debezium_unavailable_value";

  /** Debezium's defaults. */
  public static ConversionOptions defaults() {
    return new ConversionOptions(DEBEZIUM_UNAVAILABLE_VALUE);
  }
}
