package io.changelake.schema.evolution;

import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.types.RowType;

/**
 * Compares a record schema with a table schema and plans the changes, pure (no I/O).
 *
 * <p>Rules: a record field unknown to the table is added as a nullable column at the end; a field
 * whose type is wider than the column widens it (int8 -> int16 -> int32 -> int64, float -> double,
 * decimal growth that keeps the integer digits, char/varchar/binary length growth, timestamp
 * precision growth, integer -> decimal wide enough, recursively in rows, arrays and maps); an
 * optional field for a NOT NULL column relaxes it; a column missing from the record is kept and
 * gets null. A narrower field never narrows the column (values are written into the wider column).
 * Everything else is refused: incompatible type changes, primary-key changes, a new required field
 * without default — each decided by {@link EvolutionPolicy}.
 */
public final class EvolutionPlanner {

  /** Plans against a table schema (its primary keys come from the schema). */
  public EvolutionPlan plan(
      Identifier table, TableSchema current, Schema incoming, EvolutionPolicy policy) {
    return plan(table, current.logicalRowType(), current.primaryKeys(), incoming, policy);
  }

  /**
   * Plans the changes for records of {@code incoming} (a struct schema: the Debezium {@code after}
   * / {@code before} row, or a flat record value).
   *
   * @throws SchemaEvolutionException for a refused change
   */
  public EvolutionPlan plan(
      Identifier table,
      RowType current,
      List<String> primaryKeys,
      Schema incoming,
      EvolutionPolicy policy) {
    return plan(table, current, primaryKeys, incoming, null, policy);
  }

  /**
   * As {@link #plan(Identifier, RowType, List, Schema, EvolutionPolicy)}, also checking that the
   * record key's fields ({@code incomingKey}, may be null) are the table's primary key.
   */
  public EvolutionPlan plan(
      Identifier table,
      RowType current,
      List<String> primaryKeys,
      Schema incoming,
      Schema incomingKey,
      EvolutionPolicy policy) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }
}
