package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFile;
import io.changelake.configs.files.Secrets;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ValidationReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "validate",
    description = {
      "Validates connector files with the worker's own plugins"
          + " (PUT /connector-plugins/{class}/config/validate) and prints each error next to its"
          + " key. Nothing is deployed.",
      "Config-provider references such as $${env:PGPASSWORD} are sent as written."
    })
final class ValidateCommand extends ConnectCommand {
  @Mixin ConnectorFileParameters connectorFiles;

  /** One key's error; literal secrets of the file are replaced by [hidden]. */
  record KeyError(String key, String message) {}

  /** What Connect said about one file. */
  record FileValidation(
      String file, String name, String connectorClass, boolean valid, List<KeyError> errors) {}

  /** {@code -o json}. */
  record Result(List<FileValidation> files, int valid, int total) {}

  @Override
  public Integer call() {
    List<ConnectorFile> files = connectorFiles.load();
    List<FileValidation> results = new ArrayList<>();
    for (ConnectorFile file : files) {
      FileValidation result = validate(this, file);
      results.add(result);
      if (!json()) {
        print(out(), result);
      }
    }
    int valid = (int) results.stream().filter(FileValidation::valid).count();
    if (json()) {
      JsonOutput.write(out(), new Result(results, valid, files.size()));
    } else {
      out().printf("%d of %d connector files valid%n", valid, files.size());
      out().flush();
    }
    return valid == files.size() ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /** Validates one file against the worker. */
  static FileValidation validate(ConnectCommand command, ConnectorFile file) {
    List<KeyError> errors = new ArrayList<>();
    try {
      ValidationReport report =
          command.client().validate(file.connectorClass(), file.configToSend());
      for (ValidationReport.KeyReport key : report.keysWithErrors()) {
        for (String error : key.errors()) {
          errors.add(new KeyError(key.name(), Secrets.redact(error, file.config())));
        }
      }
    } catch (ConnectRestException e) {
      if (e.status() != 400 && e.status() != 404 && e.status() != 500) {
        throw e;
      }
      // Connect answers this way when the class is not installed on the worker.
      errors.add(new KeyError("connector.class", Secrets.redact(e.getMessage(), file.config())));
    }
    return new FileValidation(
        file.source().toString(), file.name(), file.connectorClass(), errors.isEmpty(), errors);
  }

  static void print(PrintWriter out, FileValidation result) {
    out.printf("%s  %s  (%s)%n", result.file(), result.name(), result.connectorClass());
    for (KeyError error : result.errors()) {
      out.printf("  %s: %s%n", error.key(), error.message());
    }
    int count = result.errors().size();
    out.println(count == 0 ? "  valid" : "  " + count + (count == 1 ? " error" : " errors"));
    out.flush();
  }
}
