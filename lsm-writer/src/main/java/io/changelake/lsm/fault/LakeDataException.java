package io.changelake.lsm.fault;

/**
 * The data or the schema cannot be written or read as it is (a record that does not fit, a table
 * file missing or corrupt, a split this build cannot read): not retriable, a person must change the
 * data, the table or the settings. Names the table and, where one is at fault, the field.
 */
public final class LakeDataException extends LakeException {
  private final String table;
  private final String field;

  /**
   * @param table full name of the table
   * @param field the field at fault, or null
   */
  public LakeDataException(String message, String table, String field, Throwable cause) {
    super(message, cause, false);
    this.table = table;
    this.field = field;
  }

  public String table() {
    return table;
  }

  /** The field at fault, or null when the whole record or table is. */
  public String field() {
    return field;
  }
}
