package io.changelake.sink.config;

import java.util.Locale;

/** Shape of the record values the sink consumes. */
public enum InputFormat {
  /** Debezium envelopes and flattened records are told apart record by record. */
  AUTO,
  /** Debezium change envelopes: {@code op}, {@code before}, {@code after}, {@code source}. */
  ENVELOPE,
  /**
   * Rows flattened by Debezium's {@code ExtractNewRecordState}, with {@code __op}/{@code
   * __deleted}.
   */
  FLATTENED;

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  static InputFormat fromConfigName(String value) {
    return InputFormat.valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
