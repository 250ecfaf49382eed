package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;

@Command(
    name = "stop",
    description = {
      "Stops connectors (KIP-875, PUT .../stop): tasks are shut down, the config is kept. Offsets"
          + " can be reset or altered only while a connector is stopped; 'resume' starts it again."
    })
final class StopCommand extends LifecycleCommand {
  @Override
  String apply(ConnectClient client, String name) {
    client.stop(name);
    return "stop requested";
  }
}
