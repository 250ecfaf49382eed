package io.changelake.sink.decode;

/** A record that does not have the shape the sink expects; the message says what is wrong. */
public final class DecodingException extends RuntimeException {
  public DecodingException(String message) {
    super(message);
  }
}
