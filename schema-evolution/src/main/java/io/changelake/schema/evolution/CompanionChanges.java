package io.changelake.schema.evolution;

import io.changelake.schema.FieldMapping;
import java.util.List;
import java.util.Map;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.RowType;

/**
 * Changes a caller needs in the same ALTER as the columns {@link SchemaEvolver} plans, e.g. table
 * options naming the new columns (a partial-update table's sequence groups): applied together, no
 * writer ever sees the columns without them.
 *
 * <p>Asked on every attempt, against the schema that attempt planned on; return an empty list when
 * the table already has what is needed (the evolver then stops). Must be idempotent: two tasks
 * racing ask it on the same schema and only one ALTER lands.
 */
@FunctionalInterface
public interface CompanionChanges {
  /** No further changes. */
  CompanionChanges NONE = (target, mapping, options) -> List.of();

  /**
   * @param target the table's row type once the planned columns are added
   * @param mapping which column each field of the incoming record goes to in {@code target}
   * @param options the table's options now
   * @return the changes still missing, empty when none
   */
  List<SchemaChange> changesFor(RowType target, FieldMapping mapping, Map<String, String> options);
}
