package io.changelake.sink.config;

import io.changelake.schema.config.ConfigEnum;

/** Shape of the record values the sink consumes. */
public enum InputFormat implements ConfigEnum {
  AUTO("Debezium envelopes and flattened records are told apart record by record."),
  ENVELOPE("Debezium change envelopes: op, before, after, source."),
  FLATTENED("Rows flattened by Debezium's ExtractNewRecordState, with __op/__deleted.");

  private final String description;

  InputFormat(String description) {
    this.description = description;
  }

  @Override
  public String description() {
    return description;
  }
}
