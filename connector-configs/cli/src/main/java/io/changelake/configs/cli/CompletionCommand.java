package io.changelake.configs.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "completion",
    description = {
      "Prints a bash/zsh completion script for every command and option (picocli's AutoComplete).",
      "bash:  source <(changelake completion)",
      "zsh:   autoload -U +X compinit && compinit && autoload -U +X bashcompinit && bashcompinit"
          + " && source <(changelake completion)",
      "Or save it once: changelake completion > /etc/bash_completion.d/changelake"
    })
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    // generated from the live command tree, so it always matches this build's commands
    spec.commandLine().getOut().print(AutoComplete.bash("changelake", spec.root().commandLine()));
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
