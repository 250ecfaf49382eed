package io.changelake.configs.cli;

import io.changelake.configs.lake.LakeInspector;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

@Command(
    name = "consumers",
    description =
        "Lists a table's consumers (TABLE$consumers): each changelog reader's id and the next"
            + " snapshot it will read; snapshot expiry keeps what they still need.")
final class LakeConsumersCommand extends LakeCommand.TableSubcommand<LakeConsumersCommand.Result> {
  /** {@code -o json}: the rows of TABLE$consumers. */
  record Result(String table, List<Map<String, Object>> consumers) {}

  @Override
  Result ask(LakeInspector inspector) {
    return new Result(table, inspector.consumers(table));
  }

  @Override
  void printText(PrintWriter out, Result result) {
    if (result.consumers().isEmpty()) {
      out.println(result.table() + ": no consumers");
      out.flush();
      return;
    }
    TextTable.print(out, List.of("consumer_id", "next_snapshot_id"), result.consumers());
  }
}
