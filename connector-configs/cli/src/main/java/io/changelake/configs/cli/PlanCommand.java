package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.files.Secrets;
import io.changelake.configs.plan.ConnectorPlan;
import io.changelake.configs.plan.Planner;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "plan",
    description = {
      "Shows what deploy would change: connectors to create, keys to add, change or remove, and"
          + " deployed connectors no file declares. Secret values are never printed."
    })
final class PlanCommand extends ConnectCommand {
  @Mixin ConnectorFileParameters connectorFiles;

  @Option(
      names = "--detailed-exitcode",
      description = "Exit with 6 when deploying would change something (0 when in sync).")
  boolean detailedExitCode;

  /**
   * One key of a plan in {@code -o json}: {@code change} is add, change or remove; secret values
   * are [hidden] as in text.
   */
  record KeyChangeView(String key, String change, String before, String after) {}

  /** One file's plan: {@code action} is create, update or unchanged. */
  record PlanView(
      String file,
      String name,
      String connectorClass,
      String action,
      List<KeyChangeView> changes) {}

  /** {@code -o json}. */
  record Result(List<PlanView> connectors, List<String> undeclared, int toChange, int unchanged) {}

  @Override
  public Integer call() {
    List<ConnectorFile> files = connectorFiles.load();
    PrintWriter out = out();
    int changes = 0;
    List<PlanView> views = new ArrayList<>();
    for (ConnectorFile file : files) {
      ConnectorPlan plan = Planner.plan(file, client().config(file.name()));
      if (json()) {
        views.add(view(plan));
      } else {
        print(out, plan);
      }
      if (!(plan instanceof ConnectorPlan.Unchanged)) {
        changes++;
      }
    }
    Set<String> undeclared = new TreeSet<>(client().connectors());
    files.forEach(f -> undeclared.remove(f.name()));
    if (json()) {
      JsonOutput.write(
          out, new Result(views, List.copyOf(undeclared), changes, files.size() - changes));
    } else {
      for (String name : undeclared) {
        out.printf("  %s: deployed, but in none of these files (left alone)%n", name);
      }
      out.printf("%d to change, %d unchanged%n", changes, files.size() - changes);
      out.flush();
    }
    return detailedExitCode && changes > 0 ? ExitCodes.CHANGES_PENDING : ExitCodes.OK;
  }

  static PlanView view(ConnectorPlan plan) {
    ConnectorFile file = plan.file();
    List<KeyChangeView> changes = new ArrayList<>();
    String action;
    if (plan instanceof ConnectorPlan.Create) {
      action = "create";
      file.configToSend()
          .forEach((k, v) -> changes.add(new KeyChangeView(k, "add", null, Secrets.display(k, v))));
    } else if (plan instanceof ConnectorPlan.Update update) {
      action = "update";
      for (ConnectorPlan.KeyChange change : update.changes()) {
        String key = change.key();
        String before = change.before() == null ? null : Secrets.display(key, change.before());
        String after = change.after() == null ? null : Secrets.display(key, change.after());
        String kind = before == null ? "add" : after == null ? "remove" : "change";
        changes.add(new KeyChangeView(key, kind, before, after));
      }
    } else {
      action = "unchanged";
    }
    return new PlanView(
        file.source().toString(), file.name(), file.connectorClass(), action, changes);
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
