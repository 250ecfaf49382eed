package io.changelake.configs.cli;

import io.changelake.configs.lake.LakeInspector;
import io.changelake.configs.lake.SchemaVersion;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;

@Command(
    name = "schemas",
    description =
        "Shows a table's schema history: the first schema in full, then each later version as"
            + " its changes (columns added, dropped, retyped or renamed; options set or removed).")
final class LakeSchemasCommand extends LakeCommand.TableSubcommand<LakeSchemasCommand.Result> {
  /** {@code -o json}: every version, oldest first, each with its changes to the one before. */
  record Result(String table, List<SchemaVersion> schemas) {}

  @Override
  Result ask(LakeInspector inspector) {
    return new Result(table, inspector.schemas(table));
  }

  @Override
  void printText(PrintWriter out, Result result) {
    for (SchemaVersion version : result.schemas()) {
      out.printf("schema %d  %s%n", version.schemaId(), version.time());
      if (version.schemaId() == result.schemas().get(0).schemaId()) {
        for (SchemaVersion.Column column : version.columns()) {
          out.printf("    %s %s%n", column.name(), column.type());
        }
        out.printf("    primary key %s%n", String.join(", ", version.primaryKeys()));
        if (!version.partitionKeys().isEmpty()) {
          out.printf("    partitioned by %s%n", String.join(", ", version.partitionKeys()));
        }
        continue;
      }
      if (version.changes().isEmpty()) {
        out.println("    (no change)");
      }
      for (SchemaVersion.Change change : version.changes()) {
        out.println("    " + describe(change));
      }
    }
    out.flush();
  }

  static String describe(SchemaVersion.Change change) {
    return switch (change.kind()) {
      case "add_column" -> "+ column " + change.name() + " " + change.after();
      case "drop_column" -> "- column " + change.name() + " " + change.before();
      case "change_type" ->
          "~ column " + change.name() + ": " + change.before() + " -> " + change.after();
      case "rename_column" -> "~ column " + change.before() + " renamed to " + change.after();
      case "primary_key" -> "~ primary key: " + change.before() + " -> " + change.after();
      case "remove_option" -> "- option " + change.name() + " (was " + change.before() + ")";
      default ->
          "~ option "
              + change.name()
              + ": "
              + (change.before() == null ? "(unset)" : change.before())
              + " -> "
              + change.after();
    };
  }
}
