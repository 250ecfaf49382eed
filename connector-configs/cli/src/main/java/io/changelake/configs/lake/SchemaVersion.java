package io.changelake.configs.lake;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.types.DataField;

/**
 * One version of a table's schema, and what changed against the version before it.
 *
 * @param time when the version was written (ISO-8601)
 * @param changes empty for the first version
 */
public record SchemaVersion(
    long schemaId,
    String time,
    List<Column> columns,
    List<String> primaryKeys,
    List<String> partitionKeys,
    List<Change> changes) {

  /** A column with its Paimon type (nullability included, e.g. {@code BIGINT NOT NULL}). */
  public record Column(String name, String type) {}

  /**
   * One difference to the previous version. {@code kind}: add_column, drop_column, change_type,
   * set_option, remove_option, primary_key; {@code before}/{@code after} null where not applicable.
   */
  public record Change(String kind, String name, String before, String after) {}

  static SchemaVersion of(TableSchema schema, TableSchema previous) {
    return new SchemaVersion(
        schema.id(),
        Instant.ofEpochMilli(schema.timeMillis()).toString(),
        columns(schema),
        schema.primaryKeys(),
        schema.partitionKeys(),
        previous == null ? List.of() : changes(previous, schema));
  }

  private static List<Column> columns(TableSchema schema) {
    return schema.fields().stream().map(f -> new Column(f.name(), f.type().toString())).toList();
  }

  private static List<Change> changes(TableSchema before, TableSchema after) {
    List<Change> changes = new ArrayList<>();
    // columns are matched by field id, so a rename shows as a type-preserving change of name
    for (DataField field : after.fields()) {
      DataField old =
          before.fields().stream().filter(f -> f.id() == field.id()).findFirst().orElse(null);
      if (old == null) {
        changes.add(new Change("add_column", field.name(), null, field.type().toString()));
      } else if (!old.name().equals(field.name())) {
        changes.add(new Change("rename_column", old.name(), old.name(), field.name()));
      } else if (!old.type().equals(field.type())) {
        changes.add(
            new Change(
                "change_type", field.name(), old.type().toString(), field.type().toString()));
      }
    }
    for (DataField old : before.fields()) {
      if (after.fields().stream().noneMatch(f -> f.id() == old.id())) {
        changes.add(new Change("drop_column", old.name(), old.type().toString(), null));
      }
    }
    if (!before.primaryKeys().equals(after.primaryKeys())) {
      changes.add(
          new Change(
              "primary_key",
              null,
              String.join(",", before.primaryKeys()),
              String.join(",", after.primaryKeys())));
    }
    Map<String, String> was = before.options();
    Map<String, String> now = after.options();
    TreeSet<String> keys = new TreeSet<>(was.keySet());
    keys.addAll(now.keySet());
    for (String key : keys) {
      if (!now.containsKey(key)) {
        changes.add(new Change("remove_option", key, was.get(key), null));
      } else if (!Objects.equals(was.get(key), now.get(key))) {
        changes.add(new Change("set_option", key, was.get(key), now.get(key)));
      }
    }
    return changes;
  }
}
