package io.changelake.sink.config;

import java.util.Locale;

/**
 * What the sink does with records that carry no key (a source table without a primary key, e.g.
 * PostgreSQL with {@code REPLICA IDENTITY FULL} and no key) when no primary key is configured for
 * their table ({@code table.<table>.primary-key-fields}).
 */
public enum KeylessMode {
  /**
   * Write every change as a row of an append-only table (no primary key): the row's columns plus
   * the operation and the source position, so the table is the history of the source table.
   */
  APPEND,
  /** Refuse the record with an error naming the table and the settings to use. */
  FAIL;

  /** The name used in configs, e.g. {@code append}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static KeylessMode fromConfigName(String value) {
    return KeylessMode.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
  }
}
