package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectRestException;
import java.util.List;
import picocli.CommandLine.Parameters;

/** A command applied to each named connector in turn (pause, resume, stop, restart, delete). */
abstract class LifecycleCommand extends ConnectCommand {
  @Parameters(
      arity = "1..*",
      paramLabel = "NAME|PATH",
      description = "Connector names, or connector files/directories naming them.")
  List<String> targets;

  /** Applies the action to one connector and returns what to print. */
  abstract String apply(ConnectClient client, String name);

  @Override
  public Integer call() {
    int code = ExitCodes.OK;
    for (String name : names(targets)) {
      try {
        out().printf("%s: %s%n", name, apply(client(), name));
      } catch (ConnectRestException e) {
        if (!e.notFound()) {
          throw e;
        }
        out().printf("%s: not found%n", name);
        code = ExitCodes.NOT_FOUND;
      }
    }
    out().flush();
    return code;
  }
}
