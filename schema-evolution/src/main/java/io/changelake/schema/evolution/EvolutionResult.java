package io.changelake.schema.evolution;

import io.changelake.schema.FieldMapping;
import java.util.List;
import org.apache.paimon.types.RowType;

/**
 * What {@link SchemaEvolver#evolve} did.
 *
 * @param applied the steps this call applied (empty when the table already fitted, e.g. because
 *     another task applied the same change first)
 * @param rowType the table's row type now
 * @param schemaId the table's schema id now
 * @param fieldMapping which column each record field goes to in {@link #rowType}
 */
public record EvolutionResult(
    List<SchemaChangeStep> applied, RowType rowType, long schemaId, FieldMapping fieldMapping) {

  public EvolutionResult {
    applied = List.copyOf(applied);
  }

  /** True when this call changed the table (the caller's writers must reopen). */
  public boolean changed() {
    return !applied.isEmpty();
  }
}
