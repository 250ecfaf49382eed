package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ConnectorState;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "status",
    description = {
      "Shows the state of connectors and their tasks, with the trace of failed ones. Without"
          + " arguments, every connector on the cluster. Exit code 1 when any is FAILED."
    })
final class StatusCommand extends ConnectCommand {
  @Parameters(
      arity = "0..*",
      paramLabel = "NAME|PATH",
      description = "Connector names, or connector files/directories whose connectors to show.")
  List<String> targets = List.of();

  @Option(names = "--trace", description = "Print failure traces in full.")
  boolean fullTraces;

  /** {@code -o json}: the connectors found, and the names that do not exist. */
  record Result(String connectUrl, List<StatusView> connectors, List<String> notFound) {}

  @Override
  public Integer call() {
    List<String> names = targets.isEmpty() ? client().connectors() : names(targets);
    if (names.isEmpty() && !json()) {
      out().println("no connectors deployed at " + client().url());
      return ExitCodes.OK;
    }
    int code = ExitCodes.OK;
    List<StatusView> found = new ArrayList<>();
    List<String> notFound = new ArrayList<>();
    for (String name : names.stream().sorted().toList()) {
      try {
        ConnectorState state = client().status(name);
        found.add(StatusView.of(state));
        if (!json()) {
          StatusPrinter.print(out(), state, fullTraces);
        }
        if (state.anyFailed()) {
          code = Math.max(code, ExitCodes.FAILED);
        }
      } catch (ConnectRestException e) {
        if (!e.notFound()) {
          throw e;
        }
        notFound.add(name);
        if (!json()) {
          out().printf("%s: not found%n", name);
        }
        code = Math.max(code, ExitCodes.NOT_FOUND);
      }
    }
    if (json()) {
      JsonOutput.write(out(), new Result(client().url().toString(), found, notFound));
    }
    out().flush();
    return code;
  }
}
