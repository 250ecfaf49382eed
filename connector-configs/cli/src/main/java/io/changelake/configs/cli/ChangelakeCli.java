package io.changelake.configs.cli;

import io.changelake.configs.files.ConnectorFileException;
import io.changelake.configs.platform.PlatformException;
import io.changelake.configs.quickstart.QuickstartException;
import io.changelake.configs.rest.ConnectRestException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/** Entry point of the changelake command line. */
@Command(
    name = "changelake",
    mixinStandardHelpOptions = true,
    scope = CommandLine.ScopeType.INHERIT,
    versionProvider = ChangelakeCli.Version.class,
    description = {
      "Declarative Kafka Connect connectors for Changelake (Debezium -> Paimon tables -> Kafka),"
          + " and an embedded local platform.",
      "",
      "Remote commands work against any Kafka Connect REST API (--connect-url, basic auth, TLS)."
    },
    subcommands = {
      ValidateCommand.class,
      PlanCommand.class,
      DeployCommand.class,
      StatusCommand.class,
      PauseCommand.class,
      ResumeCommand.class,
      StopCommand.class,
      RestartCommand.class,
      DeleteCommand.class,
      OffsetsCommand.class,
      UpCommand.class,
      QuickstartCommand.class,
      LakeCommand.class,
      CompletionCommand.class,
      HelpCommand.class
    },
    footer = {"", ExitCodes.HELP_TABLE})
public final class ChangelakeCli implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs one command line and returns its exit code. */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = commandLine();
    cli.setOut(out);
    cli.setErr(err);
    return cli.execute(args);
  }

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new ChangelakeCli());
    cli.setExecutionExceptionHandler(ChangelakeCli::handle);
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    for (CliExtension extension : CliExtension.installed()) {
      cli.addSubcommand(extension.command());
    }
    for (CommandLine sub : cli.getSubcommands().values()) {
      sub.getCommandSpec().usageMessage().footer("", ExitCodes.HELP_TABLE);
    }
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  private static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parseResult) {
    int code = report(e, cli);
    CommandLine.Model.OptionSpec output = cli.getCommandSpec().findOption(OutputOptions.OPTION);
    if (output != null && output.getValue() == OutputOptions.Format.JSON) {
      // scripts reading stdout get a document on failure too, not an empty stream
      JsonOutput.write(cli.getOut(), new ErrorResult(new ErrorResult.Error(code, e.getMessage())));
    }
    return code;
  }

  /** {@code -o json} when a command ends with an error; the text also goes to stderr. */
  record ErrorResult(Error error) {
    record Error(int exitCode, String message) {}
  }

  private static int report(Exception e, CommandLine cli) {
    PrintWriter err = cli.getErr();
    if (e instanceof ConnectRestException rest) {
      err.println("error: " + rest.getMessage());
      err.flush();
      return rest.notFound() ? ExitCodes.NOT_FOUND : ExitCodes.CONNECT_ERROR;
    }
    if (e instanceof Distribution.MissingPartException
        || e instanceof io.changelake.configs.lake.LakeException) {
      err.println("error: " + e.getMessage());
      err.flush();
      return e instanceof Distribution.MissingPartException ? ExitCodes.USAGE : ExitCodes.FAILED;
    }
    if (e instanceof ConnectorFileException file) {
      err.println("error: " + file.getMessage());
      err.flush();
      return ExitCodes.USAGE;
    }
    if (e instanceof PlatformException || e instanceof QuickstartException) {
      err.println("error: " + e.getMessage());
      err.flush();
      return ExitCodes.FAILED;
    }
    err.println("error: " + e);
    e.printStackTrace(err);
    err.flush();
    return ExitCodes.FAILED;
  }

  /** The version from the jar manifest, when built by Maven. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = ChangelakeCli.class.getPackage().getImplementationVersion();
      return new String[] {"changelake " + (version == null ? "(development build)" : version)};
    }
  }
}
