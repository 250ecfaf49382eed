package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectRestException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import picocli.CommandLine.Parameters;

/** A command applied to each named connector in turn (pause, resume, stop, restart, delete). */
abstract class LifecycleCommand extends ConnectCommand {
  @Parameters(
      arity = "1..*",
      paramLabel = "NAME|PATH",
      description = "Connector names, or connector files/directories naming them.")
  List<String> targets;

  /** One connector in {@code -o json}: {@code result} is what was done, or "not found". */
  record ActionView(String name, boolean found, String result) {}

  /** {@code -o json}: {@code action} is the command's name. */
  record Result(String action, List<ActionView> connectors) {}

  /** Applies the action to one connector and returns what to print. */
  abstract String apply(ConnectClient client, String name);

  @Override
  public Integer call() {
    int code = ExitCodes.OK;
    List<ActionView> views = new ArrayList<>();
    for (String name : names(targets)) {
      ActionView view;
      try {
        view = new ActionView(name, true, apply(client(), name));
      } catch (ConnectRestException e) {
        if (!e.notFound()) {
          throw e;
        }
        view = new ActionView(name, false, "not found");
        code = ExitCodes.NOT_FOUND;
      }
      views.add(view);
      if (!json()) {
        out().printf("%s: %s%n", name, view.result());
      }
    }
    if (json()) {
      JsonOutput.write(out(), new Result(spec.name(), views));
    }
    out().flush();
    return code;
  }

  /** A lifecycle command without options: one request per connector, always the same answer. */
  abstract static class Plain extends LifecycleCommand {
    private final BiConsumer<ConnectClient, String> request;
    private final String answer;

    Plain(BiConsumer<ConnectClient, String> request, String answer) {
      this.request = request;
      this.answer = answer;
    }

    @Override
    final String apply(ConnectClient client, String name) {
      request.accept(client, name);
      return answer;
    }
  }
}
