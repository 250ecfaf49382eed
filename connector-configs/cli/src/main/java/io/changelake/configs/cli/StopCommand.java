package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;

@Command(
    name = "stop",
    description = {
      "Stops connectors (KIP-875, PUT .../stop): tasks are shut down, the config is kept. Offsets"
          + " can be reset or altered only while a connector is stopped; 'resume' starts it again."
    })
final class StopCommand extends LifecycleCommand.Plain {
  StopCommand() {
    super(ConnectClient::stop, "stop requested");
  }
}
