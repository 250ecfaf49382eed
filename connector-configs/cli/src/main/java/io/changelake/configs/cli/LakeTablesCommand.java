package io.changelake.configs.cli;

import io.changelake.configs.lake.LakeInspector;
import io.changelake.configs.lake.LakeInspector.TableSummary;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "tables",
    description =
        "Lists the tables: primary key, buckets, merge engine, latest snapshot, rows, last commit.")
final class LakeTablesCommand extends LakeCommand.Subcommand<LakeTablesCommand.Result> {
  @Option(
      names = "--database",
      paramLabel = "DB",
      description = "Only this database (default: all).")
  String database;

  /** {@code -o json}. */
  record Result(String warehouse, List<TableSummary> tables) {}

  @Override
  Result ask(LakeInspector inspector) {
    return new Result(lake.warehouse, inspector.tables(database));
  }

  @Override
  void printText(PrintWriter out, Result result) {
    if (result.tables().isEmpty()) {
      out.println("no tables in " + result.warehouse());
      out.flush();
      return;
    }
    List<Map<String, Object>> rows =
        result.tables().stream()
            .map(
                t -> {
                  Map<String, Object> row = new LinkedHashMap<>();
                  row.put("table", t.table());
                  row.put("primary key", String.join(",", t.primaryKeys()));
                  row.put("buckets", t.buckets());
                  row.put("merge engine", t.mergeEngine());
                  row.put("snapshot", t.latestSnapshot());
                  row.put("rows", t.totalRecords());
                  row.put("last commit", t.lastCommitTime());
                  return row;
                })
            .toList();
    TextTable.print(out, List.copyOf(rows.get(0).keySet()), rows);
  }
}
