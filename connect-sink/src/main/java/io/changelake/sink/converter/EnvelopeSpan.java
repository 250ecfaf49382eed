package io.changelake.sink.converter;

/**
 * Where the parts of a {@code {"schema": {...}, "payload": ...}} envelope sit in a message, found
 * by a byte scan that does not tokenize the schema (the schema hash is computed during the same
 * scan), or without any scan when the message repeats the schema bytes of an earlier one.
 */
record EnvelopeSpan(
    int schemaStart, int schemaEnd, int schemaHash, int payloadStart, int payloadEnd) {

  private static final byte[] SCHEMA_KEY = "\"schema\"".getBytes();
  private static final byte[] PAYLOAD_KEY = "\"payload\"".getBytes();

  /**
   * Locates the envelope parts, or returns null when the message is not in the canonical shape
   * written by JsonConverter (schema object first, then payload, nothing else). A null answer is
   * not an error: the caller hands such messages to JsonConverter itself.
   */
  static EnvelopeSpan locate(byte[] b) {
    int schemaStart = schemaStart(b);
    if (schemaStart < 0) {
      return null;
    }
    int depth = 0;
    int hash = 1;
    boolean inString = false;
    int i = schemaStart;
    for (; i < b.length; i++) {
      byte c = b[i];
      hash = 31 * hash + c;
      if (inString) {
        if (c == '\\') {
          i++;
          if (i < b.length) {
            hash = 31 * hash + b[i];
          }
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '{') {
        depth++;
      } else if (c == '}' && --depth == 0) {
        break;
      }
    }
    if (i >= b.length) {
      return null;
    }
    return afterSchema(b, schemaStart, i + 1, hash);
  }

  /**
   * Where the schema object starts: after {@code {"schema":}, or -1 when the message does not
   * begin that way (or the schema is not an object, e.g. null).
   */
  static int schemaStart(byte[] b) {
    int i = skipWhitespace(b, 0);
    if (i >= b.length || b[i] != '{') {
      return -1;
    }
    i = expectKey(b, skipWhitespace(b, i + 1), SCHEMA_KEY);
    return i < 0 || i >= b.length || b[i] != '{' ? -1 : i;
  }

  /**
   * Completes the span once the schema object's end is known (from a scan, or because the message
   * repeats the bytes of a schema seen before): the payload follows, then the closing brace.
   */
  static EnvelopeSpan afterSchema(byte[] b, int schemaStart, int schemaEnd, int schemaHash) {
    int i = skipWhitespace(b, schemaEnd);
    if (i >= b.length || b[i] != ',') {
      return null;
    }
    int payloadStart = expectKey(b, skipWhitespace(b, i + 1), PAYLOAD_KEY);
    if (payloadStart < 0) {
      return null;
    }
    int end = b.length - 1;
    while (end > payloadStart && isWhitespace(b[end])) {
      end--;
    }
    if (end <= payloadStart || b[end] != '}') {
      return null;
    }
    return new EnvelopeSpan(schemaStart, schemaEnd, schemaHash, payloadStart, end);
  }

  int schemaLength() {
    return schemaEnd - schemaStart;
  }

  /** Returns the index after {@code key :} and any whitespace, or -1. */
  private static int expectKey(byte[] b, int i, byte[] key) {
    if (i + key.length > b.length) {
      return -1;
    }
    for (int k = 0; k < key.length; k++) {
      if (b[i + k] != key[k]) {
        return -1;
      }
    }
    i = skipWhitespace(b, i + key.length);
    if (i >= b.length || b[i] != ':') {
      return -1;
    }
    return skipWhitespace(b, i + 1);
  }

  private static int skipWhitespace(byte[] b, int i) {
    while (i < b.length && isWhitespace(b[i])) {
      i++;
    }
    return i;
  }

  private static boolean isWhitespace(byte c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
  }
}
