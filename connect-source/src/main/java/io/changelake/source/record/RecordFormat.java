package io.changelake.source.record;

import io.changelake.schema.config.ConfigEnum;

/** The shape of record values, as chosen by {@code record.format}. */
public enum RecordFormat implements ConfigEnum {
  ENVELOPE("Debezium's change envelope: before, after, source, op, ts_ms."),
  FLAT("The row itself plus an operation field.");

  private final String description;

  RecordFormat(String description) {
    this.description = description;
  }

  @Override
  public String description() {
    return description;
  }
}
