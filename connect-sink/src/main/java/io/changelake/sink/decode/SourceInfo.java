package io.changelake.sink.decode;

import java.util.Optional;

/**
 * What the Debezium {@code source} block says about a change.
 *
 * @param db database name
 * @param schema schema name (PostgreSQL, SQL Server)
 * @param table table name
 * @param position the change's position in the source database
 */
public record SourceInfo(
    Optional<String> db, Optional<String> schema, Optional<String> table, SourcePosition position) {

  /** A record without a source block, positioned by its Kafka timestamp. */
  public static SourceInfo none(long recordTimestamp) {
    return new SourceInfo(
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        new SourcePosition(SourcePosition.Kind.RECORD_TIMESTAMP, Math.max(recordTimestamp, 0)));
  }
}
