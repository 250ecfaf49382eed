package io.changelake.schema.evolution;

import io.changelake.schema.FieldMapping;
import java.util.List;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.RowType;

/**
 * What must change in a table so records of one schema can be written, under a policy.
 *
 * @param table the table
 * @param current the table's row type the plan was made against
 * @param target the row type after all {@link #steps}; rows are written in this type
 * @param steps changes to apply, in order; empty when the table already fits
 * @param fieldMapping which column each record field goes to in {@link #target}
 * @param ignored changes the policy ignored, described for logs (e.g. {@code "field x unknown to
 *     the table: dropped (schema.evolution.add-column=IGNORE)"})
 */
public record EvolutionPlan(
    Identifier table,
    RowType current,
    RowType target,
    List<SchemaChangeStep> steps,
    FieldMapping fieldMapping,
    List<String> ignored) {

  public EvolutionPlan {
    steps = List.copyOf(steps);
    ignored = List.copyOf(ignored);
  }

  /** True when nothing must be applied to the table. */
  public boolean isEmpty() {
    return steps.isEmpty();
  }
}
