package io.changelake.configs.cli;

import io.changelake.configs.lake.LakeInspector;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "lake",
    description = {
      "Looks at the Paimon tables of a warehouse without an engine: tables, snapshots, schema"
          + " history, consumers, files per bucket and level (Paimon's system tables). Read-only.",
      "The catalog is opened as the connectors open it: --warehouse and the paimon.* options."
    },
    subcommands = {
      LakeTablesCommand.class,
      LakeSnapshotsCommand.class,
      LakeSchemasCommand.class,
      LakeConsumersCommand.class,
      LakeFilesCommand.class
    })
final class LakeCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** One lake subcommand: opens the catalog, asks, prints text or the one JSON document. */
  abstract static class Subcommand<R> implements Callable<Integer> {
    @Mixin LakeOptions lake;

    @Mixin OutputOptions output;

    @Spec CommandSpec spec;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    @Override
    public Integer call() {
      // checked first: without lib/lake/ no Paimon class may be touched
      Distribution.requireLake();
      try (LakeInspector inspector = new LakeInspector(lake.catalogProps())) {
        R result = ask(inspector);
        if (output.json()) {
          JsonOutput.write(out(), result);
        } else {
          printText(out(), result);
        }
      }
      return ExitCodes.OK;
    }

    /** The result record, as {@code -o json} prints it. */
    abstract R ask(LakeInspector inspector);

    abstract void printText(PrintWriter out, R result);
  }

  /** A subcommand about one table, named as its first parameter. */
  abstract static class TableSubcommand<R> extends Subcommand<R> {
    @Parameters(index = "0", paramLabel = "DB.TABLE", description = "The table.")
    String table;
  }
}
