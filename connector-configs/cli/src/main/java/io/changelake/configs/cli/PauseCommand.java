package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;

@Command(
    name = "pause",
    description = "Pauses connectors: tasks stay assigned but stop processing (PUT .../pause).")
final class PauseCommand extends LifecycleCommand {
  @Override
  String apply(ConnectClient client, String name) {
    client.pause(name);
    return "pause requested";
  }
}
