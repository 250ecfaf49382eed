package io.changelake.sink.decode;

import io.changelake.sink.config.ChangelakeSinkConfig;

/** Picks the decoder for the configured input format. */
public final class Decoders {
  private Decoders() {}

  public static EnvelopeDecoder forConfig(ChangelakeSinkConfig config) {
    FlattenedDecoder flattened =
        new FlattenedDecoder(config.flattenedOpField(), config.flattenedDeletedField());
    return switch (config.inputFormat()) {
      case ENVELOPE -> new DebeziumEnvelopeDecoder();
      case FLATTENED -> flattened;
      case AUTO -> new AutoDetectingDecoder(flattened);
    };
  }
}
