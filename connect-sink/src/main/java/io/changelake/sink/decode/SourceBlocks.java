package io.changelake.sink.decode;

import io.changelake.schema.debezium.EnvelopeFields.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Reads source information by field name. Debezium's envelopes carry it in the {@code source}
 * struct ({@code lsn}, {@code file}/{@code pos}, {@code ts_ms}, {@code db}, ...), flattened records
 * in fields added by ExtractNewRecordState ({@code __lsn}, {@code __source_ts_ms}, ...); both are
 * read through a lookup from a Debezium field name to its value.
 *
 * <p>One per decoder (not thread-safe, like the decoder): it remembers the last stream source name,
 * which nearly every record of a task repeats.
 */
final class SourceBlocks {
  // the stream source of the record before (see stream): joining name and database per record was
  // a String and its bytes per record on the task thread
  private String lastName;
  private String lastDb;
  private String lastSource;

  /**
   * Everything the record says about its source, read once per record.
   *
   * @param field reads a Debezium source field of the record
   * @param sourceOnly reads it from the source block only (see {@link #stream})
   * @param snapshotRead the record is a snapshot read
   */
  SourceInfo read(
      Function<String, Object> field,
      Function<String, Object> sourceOnly,
      long recordTimestamp,
      boolean snapshotRead) {
    return new SourceInfo(
        text(field.apply(Source.DB)),
        text(field.apply(Source.SCHEMA)),
        text(field.apply(Source.TABLE)),
        position(field, recordTimestamp),
        stream(sourceOnly, snapshotRead),
        sourceTimestamp(sourceOnly));
  }

  /** The first of {@link #positions}, without building the others. */
  private static SourcePosition position(Function<String, Object> field, long recordTimestamp) {
    // read first: a binlog file name without a number fails the record, also next to an LSN
    SourcePosition binlog = binlog(field);
    if (field.apply(Source.LSN) instanceof Number lsn) {
      return new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, lsn.longValue());
    }
    if (binlog != null) {
      return binlog;
    }
    if (field.apply(Source.TS_MS) instanceof Number ts) {
      return new SourcePosition(SourcePosition.Kind.SOURCE_TIMESTAMP, ts.longValue());
    }
    return new SourcePosition(SourcePosition.Kind.RECORD_TIMESTAMP, Math.max(recordTimestamp, 0));
  }

  /**
   * Every position the record carries, most precise first; the last is always the record's Kafka
   * timestamp. A truncate is compared with rows that may carry a less precise kind than its own.
   */
  static List<SourcePosition> positions(Function<String, Object> field, long recordTimestamp) {
    List<SourcePosition> positions = new ArrayList<>(4);
    if (field.apply(Source.LSN) instanceof Number lsn) {
      positions.add(new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, lsn.longValue()));
    }
    SourcePosition binlog = binlog(field);
    if (binlog != null) {
      positions.add(binlog);
    }
    if (field.apply(Source.TS_MS) instanceof Number ts) {
      positions.add(new SourcePosition(SourcePosition.Kind.SOURCE_TIMESTAMP, ts.longValue()));
    }
    positions.add(
        new SourcePosition(SourcePosition.Kind.RECORD_TIMESTAMP, Math.max(recordTimestamp, 0)));
    return positions;
  }

  /** MySQL's binlog {@code file}/{@code pos}, or null when the record has none. */
  private static SourcePosition binlog(Function<String, Object> field) {
    return field.apply(Source.FILE) instanceof String file
            && !file.isEmpty()
            && field.apply(Source.POS) instanceof Number pos
        ? SourcePosition.binlog(file, pos.longValue())
        : null;
  }

  /**
   * {@code ts_ms} of the source block: when the source committed the change. {@code field} must
   * read it from the source block only, as for {@link #stream}.
   */
  static OptionalLong sourceTimestamp(Function<String, Object> field) {
    return field.apply(Source.TS_MS) instanceof Number ts
        ? OptionalLong.of(ts.longValue())
        : OptionalLong.empty();
  }

  /**
   * Where the source's log stood (see {@link StreamPosition}): PostgreSQL's last commit LSN from
   * {@code sequence}, or MySQL's binlog {@code file}/{@code pos}, with {@code ts_ms}; empty for
   * snapshot reads and when a field is missing. {@code field} must read {@code ts_ms} from the
   * source block only (a flattened {@code __ts_ms} is Debezium's processing time, new on every
   * resend).
   */
  Optional<StreamPosition> stream(Function<String, Object> field, boolean snapshotRead) {
    Object snapshot = field.apply(Source.SNAPSHOT);
    if (snapshotRead
        || (snapshot != null && !"false".equals(String.valueOf(snapshot)))
        || !(field.apply(Source.TS_MS) instanceof Number ts)) {
      return Optional.empty();
    }
    SourcePosition position = null;
    if (field.apply(Source.LSN) instanceof Number
        && field.apply(Source.SEQUENCE) instanceof String seq) {
      long lsn = StreamPosition.lastCommitLsn(seq);
      if (lsn != StreamPosition.NO_LSN) {
        position = new SourcePosition(SourcePosition.Kind.POSTGRES_LSN, lsn);
      }
    } else {
      position = binlog(field);
    }
    if (position == null) {
      return Optional.empty();
    }
    return Optional.of(
        new StreamPosition(
            source(textOrEmpty(field.apply(Source.NAME)), textOrEmpty(field.apply(Source.DB))),
            position,
            ts.longValue()));
  }

  /** {@code name/db}, the stream source of {@link StreamPosition}; either may be empty. */
  private String source(String name, String db) {
    if (lastSource == null || !name.equals(lastName) || !db.equals(lastDb)) {
      lastName = name;
      lastDb = db;
      lastSource = name + "/" + db;
    }
    return lastSource;
  }

  private static String textOrEmpty(Object value) {
    return value instanceof String s ? s : "";
  }

  /** A field's value by name, or null when the struct has no such field. */
  static Object get(Struct struct, String name) {
    if (struct == null) {
      return null;
    }
    Field f = struct.schema().field(name);
    return f == null ? null : struct.get(f);
  }

  private static Optional<String> text(Object value) {
    return value instanceof String s && !s.isEmpty() ? Optional.of(s) : Optional.empty();
  }
}
