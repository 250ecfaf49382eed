package io.changelake.schema.evolution;

import io.changelake.schema.FieldMapping;
import io.changelake.schema.SemanticTypes;
import io.changelake.schema.TypeMapping;
import io.changelake.schema.TypeRules;
import io.changelake.schema.evolution.SchemaEvolutionException.Refusal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
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
 * without default — each decided by {@link EvolutionPolicy}. Stateless and thread-safe.
 */
public final class EvolutionPlanner {

  /**
   * Columns the platform adds for itself (lsm-writer's {@code InternalColumns.PREFIX}); never
   * expected in records, so never "missing".
   */
  public static final String INTERNAL_PREFIX = "_changelake_";

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
    if (incoming == null || incoming.type() != Schema.Type.STRUCT) {
      throw new IllegalArgumentException(
          "Table " + table + ": the record value schema must be a struct, got " + incoming);
    }
    return new Planning(
            table, current, primaryKeys, new RecordSchemas(incoming, incomingKey), policy)
        .plan();
  }

  /** The schemas of the records planned for: the value (a struct) and the key (may be null). */
  private record RecordSchemas(Schema value, Schema key) {}

  /** One planning run; holds the plan as it grows. */
  private static final class Planning {
    private final Identifier table;
    private final RowType current;
    private final Set<String> primaryKeys;
    private final Schema incoming;
    private final Schema incomingKey;
    private final EvolutionPolicy policy;
    private final List<SchemaChangeStep> steps = new ArrayList<>();
    private final Map<String, String> columnByField = new LinkedHashMap<>();
    private final Set<String> dropped = new LinkedHashSet<>();
    private final List<String> ignored = new ArrayList<>();

    Planning(
        Identifier table,
        RowType current,
        List<String> primaryKeys,
        RecordSchemas incoming,
        EvolutionPolicy policy) {
      this.table = table;
      this.current = current;
      this.primaryKeys = new LinkedHashSet<>(primaryKeys);
      this.incoming = incoming.value();
      this.incomingKey = incoming.key();
      this.policy = policy;
    }

    EvolutionPlan plan() {
      checkKey();
      for (Field field : incoming.fields()) {
        DataType type = TypeMapping.toPaimon(field.schema());
        int index = current.getFieldIndex(field.name());
        if (index < 0) {
          planNewField(field, type);
        } else {
          planExistingColumn(field, type, current.getFields().get(index));
        }
      }
      planMissingColumns();
      return new EvolutionPlan(
          table, current, target(), steps, new FieldMapping(columnByField, dropped), ignored);
    }

    private void checkKey() {
      if (incomingKey == null || incomingKey.type() != Schema.Type.STRUCT) {
        return;
      }
      Set<String> keyFields = new LinkedHashSet<>();
      incomingKey.fields().forEach(f -> keyFields.add(f.name()));
      if (!keyFields.equals(primaryKeys)) {
        throw refused(
            String.join(", ", keyFields),
            null,
            null,
            "The record key has fields "
                + keyFields
                + " but the table's primary key is "
                + primaryKeys
                + ". A primary key cannot change: create a new table (or route the topic to one).",
            null);
      }
    }

    private void planNewField(Field field, DataType type) {
      Schema schema = field.schema();
      boolean required = !schema.isOptional() && schema.defaultValue() == null;
      String key = required ? EvolutionPolicy.ADD_REQUIRED_COLUMN : EvolutionPolicy.ADD_COLUMN;
      SchemaChangeBehavior behavior = required ? policy.addRequiredColumn() : policy.addColumn();
      switch (behavior) {
        case APPLY -> {
          steps.add(
              new SchemaChangeStep.AddColumn(
                  field.name(), type, SemanticTypes.description(field.schema())));
          columnByField.put(field.name(), field.name());
        }
        case IGNORE -> drop(field.name(), "is unknown to the table", key, behavior);
        default ->
            throw refused(
                field.name(),
                null,
                type,
                required
                    ? "The record has a new required field without default value; rows already"
                        + " in the table have no value for it."
                    : "The record has a field the table has no column for.",
                key);
      }
    }

    private void planExistingColumn(Field field, DataType type, DataField column) {
      boolean primaryKey = primaryKeys.contains(column.name());
      Optional<DataType> joined = TypeRules.join(column.type(), type);
      if (joined.isEmpty()) {
        planIncompatible(field, type, column, primaryKey);
        return;
      }
      if (!TypeRules.sameType(joined.get(), column.type())
          && !TypeRules.isUnknownLengthInto(type, column.type())) {
        if (primaryKey) {
          throw refused(
              column.name(),
              column.type(),
              type,
              "Primary-key columns cannot change type: rows would hash to other buckets and keys"
                  + " would no longer match. Create a new table.",
              null);
        }
        switch (policy.widenType()) {
          case APPLY ->
              steps.add(new SchemaChangeStep.WidenType(column.name(), column.type(), joined.get()));
          case IGNORE ->
              ignored.add(
                  "column "
                      + column.name()
                      + " stays "
                      + column.type().asSQLString()
                      + " although the record has "
                      + type.asSQLString()
                      + " ("
                      + EvolutionPolicy.WIDEN_TYPE
                      + "=IGNORE): values that do not fit fail the task");
          default ->
              throw refused(
                  column.name(),
                  column.type(),
                  type,
                  "The record's type is wider than the column's.",
                  EvolutionPolicy.WIDEN_TYPE);
        }
      }
      if (field.schema().isOptional() && !column.type().isNullable() && !primaryKey) {
        relaxNotNull(column, "the record's field is optional", EvolutionPolicy.RELAX_NOT_NULL);
      }
      columnByField.put(field.name(), column.name());
    }

    private void planIncompatible(
        Field field, DataType type, DataField column, boolean primaryKey) {
      if (primaryKey || policy.incompatibleType() == SchemaChangeBehavior.FAIL) {
        throw refused(
            column.name(),
            column.type(),
            type,
            primaryKey
                ? "Primary-key columns cannot change type. Create a new table."
                : "The types are incompatible: no lossless widening leads from the column's type"
                    + " to the record's.",
            primaryKey ? null : EvolutionPolicy.INCOMPATIBLE_TYPE);
      }
      if (policy.incompatibleType() == SchemaChangeBehavior.IGNORE) {
        drop(
            field.name(),
            "has type " + type.asSQLString() + ", incompatible with " + column.type().asSQLString(),
            EvolutionPolicy.INCOMPATIBLE_TYPE,
            SchemaChangeBehavior.IGNORE);
        return;
      }
      String lenient = LenientColumns.name(column.name(), type);
      int lenientIndex = current.getFieldIndex(lenient);
      if (lenientIndex < 0) {
        steps.add(
            new SchemaChangeStep.AddLenientColumn(column.name(), column.type(), lenient, type));
      } else {
        DataField lenientColumn = current.getFields().get(lenientIndex);
        Optional<DataType> joined = TypeRules.join(lenientColumn.type(), type);
        if (joined.isEmpty() || !TypeRules.sameType(joined.get(), lenientColumn.type())) {
          // a lenient column is named after its exact type, so this means someone altered it
          throw refused(
              lenient,
              lenientColumn.type(),
              type,
              "The lenient column for " + column.name() + " no longer has the type its name says.",
              null);
        }
      }
      // the old column receives null from now on
      if (!column.type().isNullable()) {
        relaxNotNull(
            column, "it is replaced by lenient column " + lenient, EvolutionPolicy.RELAX_NOT_NULL);
      }
      columnByField.put(field.name(), lenient);
    }

    private void planMissingColumns() {
      for (DataField column : current.getFields()) {
        if (incoming.field(column.name()) != null
            || column.name().startsWith(INTERNAL_PREFIX)
            || isLenientColumnOfIncomingField(column.name())) {
          continue;
        }
        if (primaryKeys.contains(column.name())) {
          throw refused(
              column.name(),
              column.type(),
              null,
              "The record has no field for this primary-key column.",
              null);
        }
        switch (policy.missingColumn()) {
          case APPLY -> {
            if (!column.type().isNullable()) {
              relaxNotNull(
                  column,
                  "the record has no field for it",
                  EvolutionPolicy.MISSING_COLUMN,
                  SchemaChangeBehavior.APPLY);
            }
          }
          case IGNORE ->
              ignored.add(
                  "column "
                      + column.name()
                      + " is missing from the record and gets null ("
                      + EvolutionPolicy.MISSING_COLUMN
                      + "=IGNORE)");
          default ->
              throw refused(
                  column.name(),
                  column.type(),
                  null,
                  "The record has no field for this column.",
                  EvolutionPolicy.MISSING_COLUMN);
        }
      }
    }

    private boolean isLenientColumnOfIncomingField(String column) {
      int separator = column.indexOf(LenientColumns.SEPARATOR);
      while (separator > 0) {
        if (incoming.field(column.substring(0, separator)) != null) {
          return true;
        }
        separator = column.indexOf(LenientColumns.SEPARATOR, separator + 1);
      }
      return false;
    }

    private void relaxNotNull(DataField column, String why, String key) {
      relaxNotNull(column, why, key, policy.relaxNotNull());
    }

    private void relaxNotNull(
        DataField column, String why, String key, SchemaChangeBehavior behavior) {
      switch (behavior) {
        case APPLY -> steps.add(new SchemaChangeStep.RelaxNotNull(column.name(), column.type()));
        case IGNORE ->
            ignored.add(
                "column "
                    + column.name()
                    + " stays NOT NULL although "
                    + why
                    + " ("
                    + key
                    + "=IGNORE): a null value fails the task");
        default ->
            throw refused(
                column.name(),
                column.type(),
                column.type().nullable(),
                "The column is NOT NULL but " + why + ".",
                key);
      }
    }

    private void drop(String field, String why, String key, SchemaChangeBehavior behavior) {
      dropped.add(field);
      ignored.add(
          "field " + field + " " + why + ": its values are dropped (" + key + "=" + behavior + ")");
    }

    /** {@link #current} with {@link #steps} applied, as Paimon will apply them. */
    private RowType target() {
      List<DataField> fields = new ArrayList<>(current.getFields());
      int nextId = current.getFields().stream().mapToInt(DataField::id).max().orElse(-1) + 1;
      for (SchemaChangeStep step : steps) {
        if (step instanceof SchemaChangeStep.AddColumn add) {
          fields.add(new DataField(nextId++, add.column(), add.type()));
        } else if (step instanceof SchemaChangeStep.AddLenientColumn add) {
          fields.add(new DataField(nextId++, add.newColumn(), add.newType()));
        } else if (step instanceof SchemaChangeStep.WidenType widen) {
          replace(fields, widen.column(), t -> widen.to().copy(t.isNullable()));
        } else if (step instanceof SchemaChangeStep.RelaxNotNull relax) {
          replace(fields, relax.column(), DataType::nullable);
        }
      }
      return new RowType(current.isNullable(), fields);
    }

    private static void replace(
        List<DataField> fields, String name, java.util.function.UnaryOperator<DataType> change) {
      for (int i = 0; i < fields.size(); i++) {
        DataField field = fields.get(i);
        if (field.name().equals(name)) {
          fields.set(i, field.newType(change.apply(field.type())));
        }
      }
    }

    /** A refusal of a change to {@code column} of the table being planned. */
    private SchemaEvolutionException refused(
        String column, DataType oldType, DataType newType, String reason, String configKey) {
      return new SchemaEvolutionException(
          new Refusal(table, column, oldType, newType, reason, configKey));
    }
  }
}
