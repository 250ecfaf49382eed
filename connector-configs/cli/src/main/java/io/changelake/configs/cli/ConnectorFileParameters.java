package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.files.ConnectorFiles;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Parameters;

/** The {@code PATH...} of validate, plan and deploy: connector files, mixed into each. */
final class ConnectorFileParameters {
  @Parameters(
      arity = "1..*",
      paramLabel = "PATH",
      description = "Connector JSON files, or directories of them.")
  List<Path> paths;

  /** The files named, each directory's {@code *.json} in name order. */
  List<ConnectorFile> load() {
    return ConnectorFiles.load(paths);
  }
}
