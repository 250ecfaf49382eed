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
     * position of the previous record of its partition, which precedes it in the source too.
     */
    UNKNOWN
  }

  /** A position to be taken from the previous record of the partition. */
  public static SourcePosition unknown() {
    return new SourcePosition(Kind.UNKNOWN, 0);
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
