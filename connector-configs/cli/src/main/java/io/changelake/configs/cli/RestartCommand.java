package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "restart", description = "Restarts connectors and their tasks (POST .../restart).")
final class RestartCommand extends LifecycleCommand {
  @Option(
      names = "--connector-only",
      description = "Restart the connector instance only, not its tasks.")
  boolean connectorOnly;

  @Option(names = "--only-failed", description = "Restart only instances that are FAILED.")
  boolean onlyFailed;

  @Override
  String apply(ConnectClient client, String name) {
    client.restart(name, !connectorOnly, onlyFailed);
    return "restart requested" + (onlyFailed ? " (failed instances only)" : "");
  }
}
