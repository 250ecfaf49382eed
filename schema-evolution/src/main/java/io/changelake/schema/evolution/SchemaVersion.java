package io.changelake.schema.evolution;

import java.time.Instant;
import java.util.List;
import org.apache.paimon.types.RowType;

/**
 * One schema version of a table and the steps that led to it from the previous version.
 *
 * @param schemaId Paimon schema id (0 for the table's creation)
 * @param createdAt when the version was committed
 * @param rowType the columns of this version
 * @param changes the steps from the previous version (empty for version 0, or when only options
 *     changed)
 */
public record SchemaVersion(
    long schemaId, Instant createdAt, RowType rowType, List<SchemaChangeStep> changes) {
  public SchemaVersion {
    changes = List.copyOf(changes);
  }
}
