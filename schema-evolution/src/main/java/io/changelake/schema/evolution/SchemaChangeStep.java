package io.changelake.schema.evolution;

import io.changelake.schema.TypeRules;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;

/** One change to a table's schema, as planned and as applied. */
public sealed interface SchemaChangeStep {

  /** The Paimon schema changes performing this step. */
  List<SchemaChange> toSchemaChanges();

  /** One line for logs, e.g. {@code add column discount DECIMAL(10, 2)}. */
  String describe();

  /** True when {@code current} already reflects this step (for idempotent application). */
  boolean isSatisfiedBy(RowType current);

  /**
   * A new nullable column at the end of the table.
   *
   * @param description the column's Paimon description: its semantic type ({@link
   *     io.changelake.schema.SemanticTypes}), or null
   */
  record AddColumn(String column, DataType type, String description) implements SchemaChangeStep {
    public AddColumn {
      type = type.copy(true);
    }

    public AddColumn(String column, DataType type) {
      this(column, type, null);
    }

    @Override
    public List<SchemaChange> toSchemaChanges() {
      return List.of(SchemaChange.addColumn(column, type, description));
    }

    @Override
    public String describe() {
      return "add column " + column + " " + type.asSQLString();
    }

    @Override
    public boolean isSatisfiedBy(RowType current) {
      return current.containsField(column);
    }
  }

  /**
   * A column's type widened without loss (integers, float to double, decimal growth keeping the
   * integer digits, char/varchar/binary length, timestamp precision, integer to wide decimal, and
   * the same recursively inside rows, arrays and maps). Nullability is kept.
   */
  record WidenType(String column, DataType from, DataType to) implements SchemaChangeStep {
    /**
     * Paimon refuses to change an ARRAY, MAP or ROW type as a whole, so nested changes become
     * nested column changes (paths through {@code element} of arrays and {@code value} of maps);
     * everything else is one type update keeping the column's nullability.
     */
    @Override
    public List<SchemaChange> toSchemaChanges() {
      List<SchemaChange> changes = new ArrayList<>();
      collect(new String[] {column}, from, to, changes);
      return changes;
    }

    private static void collect(
        String[] path, DataType from, DataType to, List<SchemaChange> changes) {
      if (from instanceof RowType before && to instanceof RowType after) {
        for (DataField field : after.getFields()) {
          int index = before.getFieldIndex(field.name());
          if (index < 0) {
            changes.add(
                SchemaChange.addColumn(append(path, field.name()), field.type(), null, null));
          } else {
            collect(append(path, field.name()), before.getTypeAt(index), field.type(), changes);
          }
        }
      } else if (from instanceof ArrayType before && to instanceof ArrayType after) {
        collect(append(path, "element"), before.getElementType(), after.getElementType(), changes);
      } else if (from instanceof MapType before
          && to instanceof MapType after
          && TypeRules.sameType(before.getKeyType(), after.getKeyType())) {
        collect(append(path, "value"), before.getValueType(), after.getValueType(), changes);
      } else if (!TypeRules.sameType(from, to)) {
        changes.add(SchemaChange.updateColumnType(path, to, true));
      }
      if (path.length > 1 && !from.isNullable() && to.isNullable()) {
        changes.add(SchemaChange.updateColumnNullability(path, true));
      }
    }

    private static String[] append(String[] path, String name) {
      String[] longer = Arrays.copyOf(path, path.length + 1);
      longer[path.length] = name;
      return longer;
    }

    @Override
    public String describe() {
      return "widen column " + column + " " + from.asSQLString() + " -> " + to.asSQLString();
    }

    @Override
    public boolean isSatisfiedBy(RowType current) {
      int index = current.getFieldIndex(column);
      if (index < 0) {
        return false;
      }
      DataType now = current.getTypeAt(index);
      return TypeRules.join(now, to).map(joined -> TypeRules.sameType(joined, now)).orElse(false);
    }
  }

  /** A NOT NULL column becomes nullable. */
  record RelaxNotNull(String column, DataType type) implements SchemaChangeStep {
    @Override
    public List<SchemaChange> toSchemaChanges() {
      return List.of(SchemaChange.updateColumnNullability(column, true));
    }

    @Override
    public String describe() {
      return "drop NOT NULL on column " + column + " " + type.copy(true).asSQLString();
    }

    @Override
    public boolean isSatisfiedBy(RowType current) {
      int index = current.getFieldIndex(column);
      return index >= 0 && current.getTypeAt(index).isNullable();
    }
  }

  /**
   * An incompatible type change handled leniently: {@code oldColumn} stays (null from now on) and
   * {@code newColumn} ({@link LenientColumns#name}) is added nullable at the end for the new type.
   */
  record AddLenientColumn(String oldColumn, DataType oldType, String newColumn, DataType newType)
      implements SchemaChangeStep {
    public AddLenientColumn {
      newType = newType.copy(true);
    }

    @Override
    public List<SchemaChange> toSchemaChanges() {
      return List.of(SchemaChange.addColumn(newColumn, newType));
    }

    @Override
    public String describe() {
      return "add column "
          + newColumn
          + " "
          + newType.asSQLString()
          + " for incompatible change of "
          + oldColumn
          + " "
          + oldType.asSQLString();
    }

    @Override
    public boolean isSatisfiedBy(RowType current) {
      return current.containsField(newColumn);
    }
  }
}
