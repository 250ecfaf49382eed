package io.changelake.schema.evolution;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataType;

/**
 * A schema change that was refused, by the rules or by the policy. The message names the table, the
 * column, the old and new type and the config key that would change the outcome.
 */
public class SchemaEvolutionException extends RuntimeException {

  private final Identifier table;
  private final String column;
  private final DataType oldType;
  private final DataType newType;
  private final String configKey;
  private final String reason;

  /**
   * @param oldType the column's type in the table, null when the column is new
   * @param newType the type the record needs, null when the column is missing from the record
   * @param configKey the {@code schema.evolution.*} key deciding this kind of change, null when no
   *     setting allows it
   */
  public SchemaEvolutionException(
      Identifier table,
      String column,
      DataType oldType,
      DataType newType,
      String reason,
      String configKey) {
    this.table = table;
    this.column = column;
    this.oldType = oldType;
    this.newType = newType;
    this.configKey = configKey;
    this.reason = reason;
  }

  public Identifier table() {
    return table;
  }

  public String column() {
    return column;
  }

  public DataType oldType() {
    return oldType;
  }

  public DataType newType() {
    return newType;
  }

  public String configKey() {
    return configKey;
  }

  /** Names the table, the column, both types, why, and the key that would change the outcome. */
  @Override
  public String getMessage() {
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
