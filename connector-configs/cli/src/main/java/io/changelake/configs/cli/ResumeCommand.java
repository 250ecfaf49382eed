package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;

@Command(name = "resume", description = "Resumes paused or stopped connectors (PUT .../resume).")
final class ResumeCommand extends LifecycleCommand.Plain {
  ResumeCommand() {
    super(ConnectClient::resume, "resume requested");
  }
}
