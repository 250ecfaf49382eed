package io.changelake.configs.cli;

import io.changelake.configs.lake.LakeInspector;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

@Command(
    name = "snapshots",
    description =
        "Lists a table's snapshots (TABLE$snapshots): id, time, kind, committer, records."
            + " -o json gives every column of the system table.")
final class LakeSnapshotsCommand extends LakeCommand.TableSubcommand<LakeSnapshotsCommand.Result> {
  static final List<String> SHOWN =
      List.of(
          "snapshot_id",
          "commit_time",
          "commit_kind",
          "commit_user",
          "commit_identifier",
          "delta_record_count",
          "changelog_record_count",
          "total_record_count",
          "schema_id");

  /** {@code -o json}: the rows of TABLE$snapshots, Paimon's column names. */
  record Result(String table, List<Map<String, Object>> snapshots) {}

  @Override
  Result ask(LakeInspector inspector) {
    return new Result(table, inspector.snapshots(table));
  }

  @Override
  void printText(PrintWriter out, Result result) {
    if (result.snapshots().isEmpty()) {
      out.println(result.table() + ": no snapshots yet");
      out.flush();
      return;
    }
    TextTable.print(out, SHOWN, result.snapshots());
  }
}
