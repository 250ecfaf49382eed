package io.changelake.schema.evolution;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataType;

/**
 * A schema change that was refused, by the rules or by the policy. The message names the table, the
 * column, the old and new type and the config key that would change the outcome.
 */
public class SchemaEvolutionException extends RuntimeException {

  /**
   * What was refused, as a value: the exception carries it unchanged from the planner to whoever
   * reports it.
   *
   * @param oldType the column's type in the table, null when the column is new
   * @param newType the type the record needs, null when the column is missing from the record
   * @param configKey the {@code schema.evolution.*} key deciding this kind of change, null when no
   *     setting allows it
   */
  public record Refusal(
      Identifier table,
      String column,
      DataType oldType,
      DataType newType,
      String reason,
      String configKey) {

    /** Names the table, the column, both types, why, and the key that would change the outcome. */
    public String message() {
      StringBuilder b =
          new StringBuilder("Schema change refused for table ")
              .append(table == null ? "<unknown>" : table.getFullName())
              .append(", column '")
              .append(column)
              .append("': ")
              .append(oldType == null ? "<none>" : oldType.asSQLString())
              .append(" -> ")
              .append(newType == null ? "<none>" : newType.asSQLString())
              .append(". ")
              .append(reason);
      if (configKey != null) {
        b.append(" To change this, set '").append(configKey).append("'.");
      }
      return b.toString();
    }
  }

  private final Refusal refusal;

  public SchemaEvolutionException(Refusal refusal) {
    this.refusal = refusal;
  }

  public Refusal refusal() {
    return refusal;
  }

  public Identifier table() {
    return refusal.table();
  }

  public String column() {
    return refusal.column();
  }

  public DataType oldType() {
    return refusal.oldType();
  }

  public DataType newType() {
    return refusal.newType();
  }

  public String configKey() {
    return refusal.configKey();
  }

  @Override
  public String getMessage() {
    return refusal.message();
  }
}
