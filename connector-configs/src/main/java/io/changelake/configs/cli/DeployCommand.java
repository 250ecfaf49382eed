package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.files.ConnectorFiles;
import io.changelake.configs.plan.ConnectorPlan;
import io.changelake.configs.plan.Planner;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ConnectorState;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "deploy",
    description = {
      "Creates or updates connectors from files (PUT /connectors/{name}/config), then waits until"
          + " each connector and all its tasks run. Idempotent: a connector whose deployed config"
          + " already equals its file is not touched.",
      "Each file is validated first; a file with errors is not deployed. On failure the task"
          + " states and the trace of the failed task are shown and the exit code is 1."
    })
final class DeployCommand extends ConnectCommand {
  @Parameters(
      arity = "1..*",
      paramLabel = "PATH",
      description = "Connector JSON files, or directories of them.")
  List<Path> paths;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "PT2M",
      converter = DurationConverter.class,
      description = "How long to wait for each connector to run (default: 2m; e.g. 30s, 5m).")
  Duration timeout;

  @Option(
      names = "--settle",
      paramLabel = "DURATION",
      defaultValue = "PT3S",
      converter = DurationConverter.class,
      description =
          "How long connector and tasks must run without interruption to count as up"
              + " (default: 3s).")
  Duration settle;

  @Option(names = "--no-wait", description = "Return right after Connect accepted the configs.")
  boolean noWait;

  @Option(names = "--skip-validation", description = "Do not validate before deploying.")
  boolean skipValidation;

  @Override
  public Integer call() {
    List<ConnectorFile> files = ConnectorFiles.load(paths);
    PrintWriter out = out();
    boolean failed = false;
    List<String> toWatch = new ArrayList<>();
    for (ConnectorFile file : files) {
      if (!skipValidation && !ValidateCommand.validate(this, file)) {
        out.printf("! %s: not deployed, fix the errors above%n", file.name());
        failed = true;
        continue;
      }
      ConnectorPlan plan = Planner.plan(file, client().config(file.name()));
      if (plan instanceof ConnectorPlan.Unchanged) {
        out.printf("= %s: unchanged%n", file.name());
      } else {
        boolean created = client().putConfig(file.name(), file.configToSend());
        out.printf(
            "%s %s: %s%n",
            created ? "+" : "~",
            file.name(),
            created
                ? "created"
                : "updated (" + ((ConnectorPlan.Update) plan).changes().size() + " keys)");
      }
      toWatch.add(file.name());
    }
    out.flush();
    if (noWait) {
      return failed ? ExitCodes.FAILED : ExitCodes.OK;
    }
    int worst = failed ? ExitCodes.FAILED : ExitCodes.OK;
    for (String name : toWatch) {
      worst = Math.max(worst, awaitRunning(name));
    }
    return worst == ExitCodes.OK ? ExitCodes.OK : worst;
  }

  private int awaitRunning(String name) {
    PrintWriter out = out();
    ConnectorState now = null;
    try {
      now = client().status(name);
    } catch (ConnectRestException e) {
      if (!e.notFound()) {
        throw e;
      }
    }
    if (now != null
        && (ConnectorState.PAUSED.equals(now.connector().state())
            || ConnectorState.STOPPED.equals(now.connector().state()))) {
      StatusPrinter.print(out, now, false);
      out.printf(
          "  %s is %s: deploy keeps that state; run 'changelake resume %s' to start it%n",
          name, now.connector().state(), name);
      return ExitCodes.OK;
    }
    out.printf("  waiting up to %ds for %s to run...%n", timeout.toSeconds(), name);
    out.flush();
    ConnectorWaiter.Outcome outcome = ConnectorWaiter.untilRunning(client(), name, timeout, settle);
    if (outcome.last() != null) {
      StatusPrinter.print(out, outcome.last(), false);
    }
    switch (outcome.result()) {
      case REACHED:
        return ExitCodes.OK;
      case FAILED:
        out.printf(
            "! %s failed. Fix the cause shown above, then 'changelake restart %s'"
                + " (or deploy a corrected file).%n",
            name, name);
        return ExitCodes.FAILED;
      default:
        out.printf(
            "! %s did not run within %ds (connector or tasks still starting, or no task"
                + " was created).%n",
            name, timeout.toSeconds());
        return ExitCodes.TIMEOUT;
    }
  }
}
