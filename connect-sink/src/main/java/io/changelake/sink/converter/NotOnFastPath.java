package io.changelake.sink.converter;

/**
 * The input or value needs JsonConverter's own handling; thrown without a stack trace, it is cheap.
 */
final class NotOnFastPath extends RuntimeException {
  static final NotOnFastPath INSTANCE = new NotOnFastPath();

  private NotOnFastPath() {
    super("input left the fast path", null, false, false);
  }
}
