package io.changelake.sink.decode;

import io.changelake.schema.debezium.DebeziumOp;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.connect.data.Struct;

/** One decoded record: a row change, a truncate, or a tombstone. */
public sealed interface ChangeEvent {

  Origin origin();

  /**
   * A change of one row.
   *
   * @param op the operation
   * @param key the record key as a struct, or null when the key has no struct schema
   * @param before the row before the change; null for inserts, for updates without REPLICA IDENTITY
   *     FULL, and may hold only the key columns for deletes
   * @param after the row after the change; null for deletes
   * @param source source database, schema, table and position
   */
  record RowChange(
      Origin origin, DebeziumOp op, Struct key, Struct before, Struct after, SourceInfo source)
      implements ChangeEvent {

    public RowChange {
      if (!op.isRowChange()) {
        throw new IllegalArgumentException(
            "A truncate is not a row change; it is a Truncate event");
      }
    }

    /** The struct carrying the row's columns: {@code after}, or {@code before} for deletes. */
    public Struct row() {
      return op == DebeziumOp.DELETE ? before : after;
    }

    public boolean isDelete() {
      return op == DebeziumOp.DELETE;
    }
  }

  /**
   * The source table was truncated ({@code op = t}).
   *
   * @param positions every position the record carries, most precise first (rows of the table may
   *     carry a less precise kind than the truncate)
   */
  record Truncate(Origin origin, SourceInfo source, List<SourcePosition> positions)
      implements ChangeEvent {

    public Truncate(Origin origin, SourceInfo source) {
      this(origin, source, List.of(source.position()));
    }

    /** The truncate's position of {@code kind}, when the record carries one. */
    public Optional<SourcePosition> position(SourcePosition.Kind kind) {
      return positions.stream().filter(p -> p.kind() == kind).findFirst();
    }
  }

  /**
   * A record with a null value. Debezium sends one after each delete so log compaction can drop the
   * key; the delete itself already arrived, so tombstones change nothing.
   */
  record Tombstone(Origin origin) implements ChangeEvent {}
}
