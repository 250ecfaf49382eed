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

  /** {@code -o json} of a read: Connect's offsets list as it returned it. */
  record ReadResult(String connector, JsonNode offsets) {}

  /**
   * {@code -o json} of a reset or alter: {@code action} reset or alter, {@code changed} whether
   * Connect applied it, {@code message} Connect's answer (or why nothing changed).
   */
  record ChangeResult(
      String connector,
      String action,
      boolean stoppedFirst,
      boolean changed,
      String message,
      boolean resumed,
      StatusView status) {}

  @Override
  public Integer call() throws IOException {
    PrintWriter out = out();
    if (change == null) {
      JsonNode offsets = client().offsets(name);
      if (json()) {
        JsonOutput.write(out, new ReadResult(name, offsets.path("offsets")));
      } else {
        out.println(JSON.writeValueAsString(offsets));
        out.flush();
      }
      return ExitCodes.OK;
    }
    String action = change.reset ? "reset" : "alter";
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
    boolean stoppedFirst = false;
    if (!ConnectorState.STOPPED.equals(state.connector().state())) {
      if (!stopFirst) {
        return unchanged(
            action,
            false,
            String.format(
                "%s is %s; offsets change only while it is STOPPED. Run 'changelake stop %s'"
                    + " first, or add --stop.",
                name, state.connector().state(), name),
            state,
            ExitCodes.FAILED);
      }
      client().stop(name);
      stoppedFirst = true;
      progress().printf("%s: stopping...%n", name);
      progress().flush();
      ConnectorWaiter.Outcome stopped = ConnectorWaiter.untilStopped(client(), name, timeout);
      if (stopped.result() != ConnectorWaiter.Result.REACHED) {
        if (stopped.last() != null && !json()) {
          StatusPrinter.print(out, stopped.last(), false);
        }
        return unchanged(
            action,
            true,
            String.format("%s did not stop within %ds", name, timeout.toSeconds()),
            stopped.last(),
            ExitCodes.TIMEOUT);
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
        return unchanged(
            action,
            stoppedFirst,
            name + ": offsets not changed: " + e.getMessage(),
            null,
            ExitCodes.FAILED);
      }
      throw e;
    }
    if (!json()) {
      out.printf("%s: %s%n", name, message);
    }
    if (resumeAfter) {
      client().resume(name);
      if (!json()) {
        out.printf("%s: resume requested%n", name);
      }
    }
    if (json()) {
      JsonOutput.write(
          out, new ChangeResult(name, action, stoppedFirst, true, message, resumeAfter, null));
    }
    out.flush();
    return ExitCodes.OK;
  }

  private int unchanged(
      String action, boolean stoppedFirst, String message, ConnectorState last, int exitCode) {
    if (json()) {
      JsonOutput.write(
          out(),
          new ChangeResult(
              name,
              action,
              stoppedFirst,
              false,
              message,
              false,
              last == null ? null : StatusView.of(last)));
    } else {
      out().println(message);
      out().flush();
    }
    return exitCode;
  }
}
