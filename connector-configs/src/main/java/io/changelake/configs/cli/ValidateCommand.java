package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.files.ConnectorFiles;
import io.changelake.configs.files.Secrets;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ValidationReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "validate",
    description = {
      "Validates connector files with the worker's own plugins"
          + " (PUT /connector-plugins/{class}/config/validate) and prints each error next to its"
          + " key. Nothing is deployed.",
      "Config-provider references such as $${env:PGPASSWORD} are sent as written."
    })
final class ValidateCommand extends ConnectCommand {
  @Parameters(
      arity = "1..*",
      paramLabel = "PATH",
      description = "Connector JSON files, or directories of them.")
  List<Path> paths;

  @Override
  public Integer call() {
    List<ConnectorFile> files = ConnectorFiles.load(paths);
    int failed = 0;
    for (ConnectorFile file : files) {
      if (!validate(this, file)) {
        failed++;
      }
    }
    out().printf("%d of %d connector files valid%n", files.size() - failed, files.size());
    return failed == 0 ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /** Validates one file, printing the result; true when Connect found no error. */
  static boolean validate(ConnectCommand command, ConnectorFile file) {
    PrintWriter out = command.out();
    out.printf("%s  %s  (%s)%n", file.source(), file.name(), file.connectorClass());
    ValidationReport report;
    try {
      report = command.client().validate(file.connectorClass(), file.configToSend());
    } catch (ConnectRestException e) {
      if (e.status() == 400 || e.status() == 404 || e.status() == 500) {
        // Connect answers this way when the class is not installed on the worker.
        out.printf("  connector.class: %s%n", Secrets.redact(e.getMessage(), file.config()));
        out.flush();
        return false;
      }
      throw e;
    }
    for (ValidationReport.KeyReport key : report.keysWithErrors()) {
      for (String error : key.errors()) {
        out.printf("  %s: %s%n", key.name(), Secrets.redact(error, file.config()));
      }
    }
    out.println(
        report.errorCount() == 0
            ? "  valid"
            : "  " + report.errorCount() + (report.errorCount() == 1 ? " error" : " errors"));
    out.flush();
    return report.errorCount() == 0;
  }
}
