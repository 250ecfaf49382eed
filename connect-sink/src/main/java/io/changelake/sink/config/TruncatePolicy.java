package io.changelake.sink.config;

import java.util.Locale;

/** What a truncate event ({@code op = t}) does to a table. */
public enum TruncatePolicy {
  /**
   * Remove every row: the table is emptied in one overwrite snapshot carrying the positions after
   * the truncate. Rows buffered before it are dropped rather than committed first, so no crash can
   * leave them committed with positions that skip the truncate; rows after it survive.
   */
  DELETE_ALL,
  /** Keep the rows; the event is skipped. */
  IGNORE,
  /** Stop the task with an error naming the record, for pipelines where truncates are a mistake. */
  FAIL;

  /** The name used in configs, e.g. {@code delete-all}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static TruncatePolicy fromConfigName(String value) {
    return TruncatePolicy.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
  }
}
