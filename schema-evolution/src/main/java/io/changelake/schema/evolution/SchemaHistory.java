package io.changelake.schema.evolution;

import io.changelake.schema.TypeRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

/**
 * The schema changes applied to a table, read back from Paimon's own schema files (what the {@code
 * <table>$schemas} system table shows), so the history survives restarts and is the same for every
 * reader.
 */
public final class SchemaHistory {

  private SchemaHistory() {}

  /** Every schema version of {@code table}, oldest first, with the steps between versions. */
  public static List<SchemaVersion> list(FileStoreTable table) {
    List<TableSchema> schemas = new ArrayList<>(table.schemaManager().listAll());
    schemas.sort(Comparator.comparingLong(TableSchema::id));
    List<SchemaVersion> versions = new ArrayList<>();
    RowType previous = null;
    for (TableSchema schema : schemas) {
      RowType rowType = schema.logicalRowType();
      List<SchemaChangeStep> changes = previous == null ? List.of() : diff(previous, rowType);
      versions.add(
          new SchemaVersion(
              schema.id(), Instant.ofEpochMilli(schema.timeMillis()), rowType, changes));
      previous = rowType;
    }
    return versions;
  }

  /** The steps leading from {@code before} to {@code after}, columns matched by field id. */
  static List<SchemaChangeStep> diff(RowType before, RowType after) {
    Map<Integer, DataField> old = new HashMap<>();
    before.getFields().forEach(f -> old.put(f.id(), f));
    List<SchemaChangeStep> steps = new ArrayList<>();
    for (DataField field : after.getFields()) {
      DataField was = old.get(field.id());
      if (was == null) {
        steps.add(added(before, field));
        continue;
      }
      if (!TypeRules.sameType(was.type(), field.type())) {
        steps.add(new SchemaChangeStep.WidenType(field.name(), was.type(), field.type()));
      }
      if (!was.type().isNullable() && field.type().isNullable()) {
        steps.add(new SchemaChangeStep.RelaxNotNull(field.name(), was.type()));
      }
    }
    return steps;
  }

  private static SchemaChangeStep added(RowType before, DataField field) {
    int separator = field.name().lastIndexOf(LenientColumns.SEPARATOR);
    while (separator > 0) {
      String source = field.name().substring(0, separator);
      int index = before.getFieldIndex(source);
      if (index >= 0 && LenientColumns.name(source, field.type()).equals(field.name())) {
        return new SchemaChangeStep.AddLenientColumn(
            source, before.getTypeAt(index), field.name(), field.type());
      }
      separator = field.name().lastIndexOf(LenientColumns.SEPARATOR, separator - 1);
    }
    return new SchemaChangeStep.AddColumn(field.name(), field.type());
  }
}
