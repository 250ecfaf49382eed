package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.files.ConnectorFiles;
import io.changelake.configs.files.Secrets;
import io.changelake.configs.plan.ConnectorPlan;
import io.changelake.configs.plan.Planner;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "plan",
    description = {
      "Shows what deploy would change: connectors to create, keys to add, change or remove, and"
          + " deployed connectors no file declares. Secret values are never printed."
    })
final class PlanCommand extends ConnectCommand {
  @Parameters(
      arity = "1..*",
      paramLabel = "PATH",
      description = "Connector JSON files, or directories of them.")
  List<Path> paths;

  @Option(
      names = "--detailed-exitcode",
      description = "Exit with 6 when deploying would change something (0 when in sync).")
  boolean detailedExitCode;

  @Override
  public Integer call() {
    List<ConnectorFile> files = ConnectorFiles.load(paths);
    PrintWriter out = out();
    int changes = 0;
    for (ConnectorFile file : files) {
      ConnectorPlan plan = Planner.plan(file, client().config(file.name()));
      print(out, plan);
      if (!(plan instanceof ConnectorPlan.Unchanged)) {
        changes++;
      }
    }
    Set<String> undeclared = new TreeSet<>(client().connectors());
    files.forEach(f -> undeclared.remove(f.name()));
    for (String name : undeclared) {
      out.printf("  %s: deployed, but in none of these files (left alone)%n", name);
    }
    out.printf("%d to change, %d unchanged%n", changes, files.size() - changes);
    out.flush();
    return detailedExitCode && changes > 0 ? ExitCodes.CHANGES_PENDING : ExitCodes.OK;
  }

  static void print(PrintWriter out, ConnectorPlan plan) {
    ConnectorFile file = plan.file();
    if (plan instanceof ConnectorPlan.Create) {
      out.printf("+ %s: create (%s)%n", file.name(), file.connectorClass());
      file.configToSend()
          .forEach((k, v) -> out.printf("    + %s = %s%n", k, Secrets.display(k, v)));
    } else if (plan instanceof ConnectorPlan.Update update) {
      out.printf("~ %s: update %d keys%n", file.name(), update.changes().size());
      for (ConnectorPlan.KeyChange change : update.changes()) {
        String key = change.key();
        if (change.before() == null) {
          out.printf("    + %s = %s%n", key, Secrets.display(key, change.after()));
        } else if (change.after() == null) {
          out.printf("    - %s = %s%n", key, Secrets.display(key, change.before()));
        } else {
          out.printf(
              "    ~ %s: %s -> %s%n",
              key, Secrets.display(key, change.before()), Secrets.display(key, change.after()));
        }
      }
    } else {
      out.printf("= %s: unchanged%n", file.name());
    }
  }
}
