package io.changelake.sink.config;

import io.changelake.schema.config.ConfigEnum;

/**
 * What the sink does with records that carry no key (a source table without a primary key, e.g.
 * PostgreSQL with {@code REPLICA IDENTITY FULL} and no key) when no primary key is configured for
 * their table ({@code table.<table>.primary-key-fields}).
 */
public enum KeylessMode implements ConfigEnum {
  APPEND(
      "Write every change as a row of an append-only table (no primary key): the row's columns"
          + " plus the operation and the source position, so the table is the history of the"
          + " source table."),
  FAIL("Refuse the record with an error naming the table and the settings to use.");

  private final String description;

  KeylessMode(String description) {
    this.description = description;
  }

  @Override
  public String description() {
    return description;
  }
}
