package io.changelake.sink.decode;

import io.changelake.lsm.commit.CommitMark;

/**
 * Where the source database's log stood when Debezium emitted a change: a number that never
 * decreases in a partition of a healthy stream, unlike the position the change is ordered by.
 *
 * <p>PostgreSQL: the commit LSN of the transaction before the change's (the first element of
 * Debezium's {@code source.sequence}). Debezium emits transactions in commit order, so that number
 * only grows, while a change's own LSN does not (a transaction that started earlier and committed
 * later carries smaller LSNs). MySQL/MariaDB: binlog file and position, which are in commit order.
 * Snapshot reads have none (their position is the snapshot's, not the log's).
 *
 * <p>Two things make a partition's stream position go down. Debezium sending changes again after a
 * crash (at-least-once): the changes are the same, with the same {@code source.ts_ms} (commit time
 * in the source), so none is later than the latest source time already seen. A source whose log
 * restarted lower (a MySQL failover or {@code RESET MASTER}, PostgreSQL moved to a new cluster):
 * new changes, committed after everything before them, so with a later source time. The sink stops
 * on the second (see the task's {@code SourceOrder}).
 *
 * @param source the Debezium logical name and database ({@code source.name}/{@code source.db}):
 *     positions of different sources feeding one partition are never compared
 * @param position the log position, of kind {@code POSTGRES_LSN} or {@code BINLOG}
 * @param sourceTimestamp {@code source.ts_ms}; for a partition's high mark, the highest one seen
 */
public record StreamPosition(String source, SourcePosition position, long sourceTimestamp) {
  /** True when {@code other} is from the same source and log: then the two can be compared. */
  public boolean comparableTo(StreamPosition other) {
    return source.equals(other.source) && position.kind() == other.position.kind();
  }

  /**
   * The higher of two comparable positions with the later of their source times, else {@code
   * newer}: a partition's high mark.
   */
  public static StreamPosition highest(StreamPosition older, StreamPosition newer) {
    if (!older.comparableTo(newer)) {
      return newer;
    }
    SourcePosition position =
        older.position.value() >= newer.position.value() ? older.position : newer.position;
    long sourceTimestamp = Math.max(older.sourceTimestamp, newer.sourceTimestamp);
    // mostly one of the two is the high mark already: no new one per record
    if (position == newer.position && sourceTimestamp == newer.sourceTimestamp) {
      return newer;
    }
    return new StreamPosition(newer.source, position, sourceTimestamp);
  }

  /** {@code KIND:value@ts@source}, as stored in commit marks; {@link #parse} reads it back. */
  public String encode() {
    return toMark().encode();
  }

  /** Reads what {@link #encode} wrote. */
  public static StreamPosition parse(String text) {
    return of(CommitMark.Stream.parse(text));
  }

  /** This position in the commit mark's layout (lsm-writer's, which the console reads too). */
  public CommitMark.Stream toMark() {
    return new CommitMark.Stream(position.encode(), sourceTimestamp, source);
  }

  /** The position a commit mark's stream part holds. */
  public static StreamPosition of(CommitMark.Stream mark) {
    return new StreamPosition(
        mark.source(), SourcePosition.parse(mark.position()), mark.sourceTimestamp());
  }

  /** {@code kind value (source.ts_ms t)}, for messages. */
  public String describe() {
    return position.describe() + " (source.ts_ms " + sourceTimestamp + ")";
  }

  /** What {@link #lastCommitLsn} returns when the sequence has none (LSNs are never negative). */
  static final long NO_LSN = -1;

  /**
   * The first element of PostgreSQL's {@code source.sequence}, {@code ["<last commit
   * LSN>","<LSN>"]} (JSON text); {@link #NO_LSN} when it is null (the first transaction after a
   * fresh start) or malformed. Read in place: it is parsed for every record of a PostgreSQL stream.
   */
  static long lastCommitLsn(String sequence) {
    int end = sequence.length();
    int i = skipSpaces(sequence, 0, end);
    if (i == end || sequence.charAt(i) != '[') {
      return NO_LSN;
    }
    i = skipSpaces(sequence, i + 1, end);
    boolean quoted = i < end && sequence.charAt(i) == '"';
    if (quoted) {
      i++;
    }
    long lsn = 0;
    int digits = 0;
    for (; i < end && sequence.charAt(i) >= '0' && sequence.charAt(i) <= '9'; i++, digits++) {
      int digit = sequence.charAt(i) - '0';
      if (lsn > (Long.MAX_VALUE - digit) / 10) {
        return NO_LSN;
      }
      lsn = lsn * 10 + digit;
    }
    if (digits == 0 || (quoted && (i == end || sequence.charAt(i++) != '"'))) {
      return NO_LSN;
    }
    i = skipSpaces(sequence, i, end);
    return i < end && (sequence.charAt(i) == ',' || sequence.charAt(i) == ']') ? lsn : NO_LSN;
  }

  private static int skipSpaces(String text, int from, int end) {
    int i = from;
    while (i < end && Character.isWhitespace(text.charAt(i))) {
      i++;
    }
    return i;
  }
}
