package io.changelake.sink.config;

import io.changelake.schema.config.ConfigEnum;

/** What a truncate event ({@code op = t}) does to a table. */
public enum TruncatePolicy implements ConfigEnum {
  /**
   * Rows buffered before the truncate are dropped rather than committed first, so no crash can
   * leave them committed with positions that skip the truncate; rows after it survive.
   */
  DELETE_ALL(
      "Remove every row: the table is emptied in one overwrite snapshot carrying the positions"
          + " after the truncate."),
  IGNORE("Keep the rows; the event is skipped."),
  FAIL(
      "Stop the task with an error naming the record, for pipelines where truncates are a mistake.");

  private final String description;

  TruncatePolicy(String description) {
    this.description = description;
  }

  @Override
  public String description() {
    return description;
  }
}
