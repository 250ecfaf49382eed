package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;

@Command(
    name = "delete",
    description = {
      "Deletes connectors (DELETE /connectors/{name}). Their committed offsets stay in the offsets"
          + " topic: a connector created again under the same name resumes from them (to start over,"
          + " run 'changelake offsets NAME --reset --stop' before deleting)."
    })
final class DeleteCommand extends LifecycleCommand.Plain {
  DeleteCommand() {
    super(ConnectClient::delete, "deleted");
  }
}
