package io.changelake.sink.decode;

/** Debezium row operations. */
public enum Op {
  CREATE,
  /** A row read by a snapshot; written like an insert. */
  READ,
  UPDATE,
  DELETE;

  /** Debezium's {@code op} code. */
  public String code() {
    return switch (this) {
      case CREATE -> "c";
      case READ -> "r";
      case UPDATE -> "u";
      case DELETE -> "d";
    };
  }

  /** Parses Debezium's {@code op} code; truncate ({@code t}) is not a row operation. */
  public static Op fromCode(String code) {
    return switch (code) {
      case "c" -> CREATE;
      case "r" -> READ;
      case "u" -> UPDATE;
      case "d" -> DELETE;
      default ->
          throw new IllegalArgumentException(
              "Unknown Debezium operation '" + code + "'; expected c, r, u, d or t");
    };
  }
}
