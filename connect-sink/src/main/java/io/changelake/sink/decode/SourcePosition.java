package io.changelake.sink.decode;

/**
 * The position of a change in the source database, as one number that grows with the database's
 * commit order. Stored in a sequence column of every auto-created table so the table's final state
 * does not depend on which writer committed first.
 *
 * @param kind where the number came from
 * @param value the number
 */
public record SourcePosition(Kind kind, long value) {

  /** Where a position came from, from most to least precise. */
  public enum Kind {
    /** PostgreSQL log sequence number ({@code source.lsn}). */
    POSTGRES_LSN,
    /** MySQL/MariaDB binlog: file index in the upper 32 bits, position in the lower. */
    BINLOG,
    /** {@code source.ts_ms}: milliseconds; events of one millisecond tie. */
    SOURCE_TIMESTAMP,
    /** The Kafka record timestamp, for records without any source information. */
    RECORD_TIMESTAMP,
    /**
     * Not known: a tombstone standing for a delete of a flattened stream. The sink gives it the
     * highest position its partition reached before it (see the task's {@code SourceOrder}).
     */
    UNKNOWN
  }

  /** {@code KIND:value}, as stored in commit marks; {@link #parse} reads it back. */
  public String encode() {
    return kind.name() + ":" + value;
  }

  /** Reads what {@link #encode} wrote. */
  public static SourcePosition parse(String text) {
    int colon = text.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("Malformed source position '" + text + "'");
    }
    return new SourcePosition(
        Kind.valueOf(text.substring(0, colon)), Long.parseLong(text.substring(colon + 1)));
  }

  /** {@code kind value}, for messages. */
  public String describe() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + value;
  }

  private static final SourcePosition UNKNOWN = new SourcePosition(Kind.UNKNOWN, 0);

  /** A position to be taken from the previous record of the partition. */
  public static SourcePosition unknown() {
    return UNKNOWN;
  }

  public boolean isKnown() {
    return kind != Kind.UNKNOWN;
  }

  /**
   * Combines a MySQL binlog file name (e.g. {@code mysql-bin.000042}) and position. Binlog files
   * are at most 1 GiB, so the position fits in 32 bits.
   */
  public static SourcePosition binlog(String file, long pos) {
    int dot = file.lastIndexOf('.');
    long index;
    try {
      index = Long.parseLong(file.substring(dot + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Binlog file '" + file + "' has no numeric suffix");
    }
    return new SourcePosition(Kind.BINLOG, (index << 32) | (pos & 0xFFFFFFFFL));
  }
}
