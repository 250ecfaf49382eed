package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;

@Command(name = "resume", description = "Resumes paused or stopped connectors (PUT .../resume).")
final class ResumeCommand extends LifecycleCommand {
  @Override
  String apply(ConnectClient client, String name) {
    client.resume(name);
    return "resume requested";
  }
}
