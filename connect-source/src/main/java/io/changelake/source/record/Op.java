package io.changelake.source.record;

import io.changelake.lsm.changelog.ChangeRow;

/** Debezium's operation codes. */
public enum Op {
  CREATE("c"),
  UPDATE("u"),
  DELETE("d"),
  /** A row of the full-state phase (Debezium's snapshot read). */
  READ("r"),
  /** The table was emptied (a record without key or rows). */
  TRUNCATE("t");

  private final String code;

  Op(String code) {
    this.code = code;
  }

  /** The value of the {@code op} field. */
  public String code() {
    return code;
  }

  /**
   * The operation of a change. A {@code -U} without its {@code +U} (the table's changelog producer
   * did not pair them) retracts the old row, so consumers see it as a delete; the {@code +U} that
   * follows re-creates the row.
   */
  static Op of(ChangeRow change, boolean fullState) {
    return switch (change.kind()) {
      case INSERT -> fullState ? READ : CREATE;
      case UPDATE_AFTER -> fullState ? READ : UPDATE;
      case UPDATE_BEFORE, DELETE -> DELETE;
    };
  }
}
