package io.changelake.schema.debezium;

/**
 * Debezium's operation codes, the value of an envelope's {@code op} field (and of a flattened
 * record's {@code __op}). The sink reads them and the source writes them: both use this one
 * definition, so "the source emits what the sink reads" cannot drift.
 */
public enum DebeziumOp {
  CREATE("c"),
  /** A row read by a snapshot (Debezium's) or by the source's full-state phase. */
  READ("r"),
  UPDATE("u"),
  DELETE("d"),
  /** The table was emptied; an event without rows, not a row change. */
  TRUNCATE("t");

  private static final DebeziumOp[] ALL = values();

  private final String code;

  DebeziumOp(String code) {
    this.code = code;
  }

  /** The value of the {@code op} field. */
  public String code() {
    return code;
  }

  /** True for the operations that carry a row ({@code c}, {@code r}, {@code u}, {@code d}). */
  public boolean isRowChange() {
    return this != TRUNCATE;
  }

  /**
   * The operation of an {@code op} code.
   *
   * @throws IllegalArgumentException for a code Debezium does not define, naming the ones it does
   */
  public static DebeziumOp fromCode(String code) {
    // values() copies its array per call: once per record showed in profiles
    for (DebeziumOp op : ALL) {
      if (op.code.equals(code)) {
        return op;
      }
    }
    throw new IllegalArgumentException(
        "Unknown Debezium operation '" + code + "'; expected c, r, u, d or t");
  }
}
