package io.changelake.sink.decode;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the Debezium {@code source} block says about a change.
 *
 * @param db database name
 * @param schema schema name (PostgreSQL, SQL Server)
 * @param table table name
 * @param position the change's position in the source database, which its versions are ordered by
 * @param stream where the source's log stood, to tell a log that restarted lower; empty when the
 *     record does not carry it (snapshot reads, flattened records without {@code sequence} or
 *     {@code file}/{@code pos} and {@code source.ts_ms} in {@code add.fields})
 * @param sourceTimestamp {@code source.ts_ms} (flattened: {@code __source_ts_ms}), when the source
 *     committed the change; empty when the record does not carry it (flattened records without
 *     {@code source.ts_ms} in {@code add.fields}, records without a source block)
 */
public record SourceInfo(
    Optional<String> db,
    Optional<String> schema,
    Optional<String> table,
    SourcePosition position,
    Optional<StreamPosition> stream,
    OptionalLong sourceTimestamp) {

  public SourceInfo(
      Optional<String> db,
      Optional<String> schema,
      Optional<String> table,
      SourcePosition position,
      Optional<StreamPosition> stream) {
    this(db, schema, table, position, stream, OptionalLong.empty());
  }

  public SourceInfo(
      Optional<String> db,
      Optional<String> schema,
      Optional<String> table,
      SourcePosition position) {
    this(db, schema, table, position, Optional.empty());
  }

  /** A record without a source block, positioned by its Kafka timestamp. */
  public static SourceInfo none(long recordTimestamp) {
    return new SourceInfo(
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        new SourcePosition(SourcePosition.Kind.RECORD_TIMESTAMP, Math.max(recordTimestamp, 0)));
  }
}
