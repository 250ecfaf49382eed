package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.files.ConnectorFiles;
import io.changelake.configs.rest.ConnectClient;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that talks to a Connect REST API. */
abstract class ConnectCommand implements Callable<Integer> {
  @Mixin ConnectOptions connect;

  @Mixin OutputOptions output;

  @Spec CommandSpec spec;

  private ConnectClient client;

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  boolean json() {
    return output.json();
  }

  /** Where progress and notices go: stdout in text mode, stderr when stdout holds the JSON. */
  PrintWriter progress() {
    return json() ? err() : out();
  }

  ConnectClient client() {
    if (client == null) {
      PrintWriter notices = progress();
      client =
          connect.client(
              notice -> {
                notices.println(notice);
                notices.flush();
              });
    }
    return client;
  }

  /**
   * Connector names from arguments that are either names or connector files/directories (an
   * argument naming an existing {@code .json} file or a directory is read as files).
   */
  static List<String> names(List<String> args) {
    List<String> names = new ArrayList<>();
    for (String arg : args) {
      Path path = Path.of(arg);
      if (Files.isDirectory(path) || (arg.endsWith(".json") && Files.isRegularFile(path))) {
        ConnectorFiles.load(List.of(path)).stream().map(ConnectorFile::name).forEach(names::add);
      } else {
        names.add(arg);
      }
    }
    return names;
  }
}
