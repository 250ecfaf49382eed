package io.changelake.sink.converter;

/**
 * Where the parts of a {@code {"schema": {...}, "payload": ...}} envelope sit in a message, found
 * by a byte scan that does not tokenize the schema. The schema hash is computed during the same
 * scan so a cache look-up costs one pass over the schema bytes.
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
    int i = skipWhitespace(b, 0);
    if (i >= b.length || b[i] != '{') {
      return null;
    }
    i = expectKey(b, skipWhitespace(b, i + 1), SCHEMA_KEY);
    if (i < 0 || i >= b.length || b[i] != '{') {
      return null;
    }
    int schemaStart = i;
    int depth = 0;
    int hash = 1;
    boolean inString = false;
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
    int schemaEnd = i + 1;
    i = skipWhitespace(b, schemaEnd);
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
    return new EnvelopeSpan(schemaStart, schemaEnd, hash, payloadStart, end);
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
