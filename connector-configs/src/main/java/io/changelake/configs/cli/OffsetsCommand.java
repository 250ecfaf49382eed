package io.changelake.configs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.changelake.configs.files.ConnectorFileException;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ConnectorState;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "offsets",
    description = {
      "Reads a connector's committed offsets, or resets/alters them (KIP-875: GET, DELETE, PATCH"
          + " /connectors/{name}/offsets).",
      "Resetting or altering needs the connector STOPPED: give --stop to stop it first and"
          + " --resume to start it again afterwards.",
      "",
      "Alter file format (source connector):",
      "  {\"offsets\": [{\"partition\": {...}, \"offset\": {...}}]}",
      "Sink connector: partition {\"kafka_topic\": \"t\", \"kafka_partition\": 0},"
          + " offset {\"kafka_offset\": 42}."
    })
final class OffsetsCommand extends ConnectCommand {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Parameters(index = "0", paramLabel = "NAME", description = "The connector.")
  String name;

  @ArgGroup(exclusive = true)
  Change change;

  static final class Change {
    @Option(names = "--reset", description = "Remove all committed offsets.")
    boolean reset;

    @Option(
        names = "--alter",
        paramLabel = "FILE",
        description = "Write the offsets in FILE (JSON, format above).")
    Path alterFile;
  }

  @Option(names = "--stop", description = "Stop the connector first if it is not stopped.")
  boolean stopFirst;

  @Option(names = "--resume", description = "Resume the connector afterwards.")
  boolean resumeAfter;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "PT1M",
      converter = DurationConverter.class,
      description = "How long to wait for the connector to stop (default: 1m).")
  Duration timeout;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = out();
    if (change == null) {
      out.println(JSON.writeValueAsString(client().offsets(name)));
      out.flush();
      return ExitCodes.OK;
    }
    JsonNode alteration = null;
    if (change.alterFile != null) {
      try {
        alteration = JSON.readTree(change.alterFile.toFile());
      } catch (IOException e) {
        throw new ConnectorFileException(
            "Cannot read offsets from " + change.alterFile + ": " + e.getMessage(), e);
      }
      if (!alteration.path("offsets").isArray()) {
        throw new ConnectorFileException(
            change.alterFile + " must hold {\"offsets\": [{\"partition\": ..., \"offset\": ...}]}");
      }
    }
    ConnectorState state = client().status(name);
    if (!ConnectorState.STOPPED.equals(state.connector().state())) {
      if (!stopFirst) {
        out.printf(
            "%s is %s; offsets change only while it is STOPPED. Run 'changelake stop %s' first,"
                + " or add --stop.%n",
            name, state.connector().state(), name);
        out.flush();
        return ExitCodes.FAILED;
      }
      client().stop(name);
      out.printf("%s: stopping...%n", name);
      out.flush();
      ConnectorWaiter.Outcome stopped = ConnectorWaiter.untilStopped(client(), name, timeout);
      if (stopped.result() != ConnectorWaiter.Result.REACHED) {
        if (stopped.last() != null) {
          StatusPrinter.print(out, stopped.last(), false);
        }
        out.printf("%s did not stop within %ds%n", name, timeout.toSeconds());
        return ExitCodes.TIMEOUT;
      }
    }
    String message;
    try {
      message =
          alteration == null
              ? client().resetOffsets(name)
              : client().alterOffsets(name, alteration);
    } catch (ConnectRestException e) {
      if (e.status() == 400 || e.status() == 500) {
        out.printf("%s: offsets not changed: %s%n", name, e.getMessage());
        out.flush();
        return ExitCodes.FAILED;
      }
      throw e;
    }
    out.printf("%s: %s%n", name, message);
    if (resumeAfter) {
      client().resume(name);
      out.printf("%s: resume requested%n", name);
    }
    out.flush();
    return ExitCodes.OK;
  }
}
