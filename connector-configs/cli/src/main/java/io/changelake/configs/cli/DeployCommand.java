package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.plan.ConnectorPlan;
import io.changelake.configs.plan.Planner;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ConnectorState;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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
  @Mixin ConnectorFileParameters connectorFiles;

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

  /**
   * One connector in {@code -o json}. {@code action}: created, updated, unchanged, or invalid (not
   * deployed; {@code errors} says why). {@code outcome}: running, failed, timeout, paused, stopped,
   * not_waited (--no-wait) or not_deployed. {@code status} is the last state seen, if any.
   */
  record DeployView(
      String file,
      String name,
      String action,
      int changedKeys,
      List<ValidateCommand.KeyError> errors,
      String outcome,
      StatusView status) {}

  /** {@code -o json}. */
  record Result(List<DeployView> connectors) {}

  private record Applied(ConnectorFile file, String action, int changedKeys) {}

  private record Waited(String outcome, ConnectorState last, int exitCode) {}

  @Override
  public Integer call() {
    List<ConnectorFile> files = connectorFiles.load();
    PrintWriter out = out();
    List<DeployView> views = new ArrayList<>();
    List<Applied> applied = new ArrayList<>();
    int worst = ExitCodes.OK;
    for (ConnectorFile file : files) {
      if (!skipValidation) {
        ValidateCommand.FileValidation validation = ValidateCommand.validate(this, file);
        if (!json()) {
          ValidateCommand.print(out, validation);
        }
        if (!validation.valid()) {
          if (!json()) {
            out.printf("! %s: not deployed, fix the errors above%n", file.name());
          }
          views.add(
              new DeployView(
                  file.source().toString(),
                  file.name(),
                  "invalid",
                  0,
                  validation.errors(),
                  "not_deployed",
                  null));
          worst = ExitCodes.FAILED;
          continue;
        }
      }
      ConnectorPlan plan = Planner.plan(file, client().config(file.name()));
      Applied done;
      if (plan instanceof ConnectorPlan.Unchanged) {
        done = new Applied(file, "unchanged", 0);
        if (!json()) {
          out.printf("= %s: unchanged%n", file.name());
        }
      } else {
        boolean created = client().putConfig(file.name(), file.configToSend());
        int keys = created ? 0 : ((ConnectorPlan.Update) plan).changes().size();
        done = new Applied(file, created ? "created" : "updated", keys);
        if (!json()) {
          out.printf(
              "%s %s: %s%n",
              created ? "+" : "~",
              file.name(),
              created ? "created" : "updated (" + keys + " keys)");
        }
      }
      applied.add(done);
    }
    out.flush();
    for (Applied done : applied) {
      Waited waited =
          noWait ? new Waited("not_waited", null, ExitCodes.OK) : awaitRunning(done.file().name());
      worst = Math.max(worst, waited.exitCode());
      views.add(
          new DeployView(
              done.file().source().toString(),
              done.file().name(),
              done.action(),
              done.changedKeys(),
              List.of(),
              waited.outcome(),
              waited.last() == null ? null : StatusView.of(waited.last())));
    }
    if (json()) {
      JsonOutput.write(out, new Result(views));
    }
    return worst;
  }

  private Waited awaitRunning(String name) {
    PrintWriter out = out();
    PrintWriter progress = progress();
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
      if (!json()) {
        StatusPrinter.print(out, now, false);
      }
      progress.printf(
          "  %s is %s: deploy keeps that state; run 'changelake resume %s' to start it%n",
          name, now.connector().state(), name);
      progress.flush();
      return new Waited(now.connector().state().toLowerCase(Locale.ROOT), now, ExitCodes.OK);
    }
    progress.printf("  waiting up to %ds for %s to run...%n", timeout.toSeconds(), name);
    progress.flush();
    ConnectorWaiter.Outcome outcome =
        ConnectorWaiter.untilRunning(client(), name, timeout, settle, new DeployProgress(progress));
    if (outcome.last() != null && !json()) {
      StatusPrinter.print(out, outcome.last(), false);
    }
    switch (outcome.result()) {
      case REACHED:
        return new Waited("running", outcome.last(), ExitCodes.OK);
      case FAILED:
        progress.printf(
            "! %s failed. Fix the cause shown above, then 'changelake restart %s'"
                + " (or deploy a corrected file).%n",
            name, name);
        progress.flush();
        return new Waited("failed", outcome.last(), ExitCodes.FAILED);
      default:
        progress.printf(
            "! %s did not run within %ds (connector or tasks still starting, or no task"
                + " was created).%n",
            name, timeout.toSeconds());
        progress.flush();
        return new Waited("timeout", outcome.last(), ExitCodes.TIMEOUT);
    }
  }
}
