package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;

@Command(
    name = "pause",
    description = "Pauses connectors: tasks stay assigned but stop processing (PUT .../pause).")
final class PauseCommand extends LifecycleCommand.Plain {
  PauseCommand() {
    super(ConnectClient::pause, "pause requested");
  }
}
