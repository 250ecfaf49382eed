package io.changelake.configs.cli;

import io.changelake.configs.platform.EmbeddedPlatform;
import io.changelake.configs.platform.PlatformSettings;
import io.changelake.configs.platform.Ports;
import io.changelake.configs.quickstart.LocalPostgres;
import io.changelake.configs.quickstart.Quickstart;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "quickstart",
    description = {
      "Shows the whole chain on this machine, in a few minutes: starts the embedded platform,"
          + " then Debezium -> Changelake sink -> Paimon table -> Changelake changelog source ->"
          + " Kafka topic, including an update, a delete and a schema change.",
      "With a local PostgreSQL server installed (/usr/lib/postgresql/*/bin/initdb) it runs live"
          + " against a throwaway database with logical decoding; otherwise it replays Debezium"
          + " events recorded from PostgreSQL. It then prints the table's rows, schema history,"
          + " snapshots and first changelog events, and how to read the table with other"
          + " engines."
    })
final class QuickstartCommand implements Callable<Integer> {
  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "State directory (default: a new directory under the system temp dir).")
  Path dir;

  @Option(
      names = "--replay",
      description = "Replay the recorded events even if PostgreSQL is installed.")
  boolean replay;

  @Option(
      names = "--stay-up",
      description = "Keep Kafka and Connect running afterwards, until Ctrl-C.")
  boolean stayUp;

  @Option(
      names = "--record",
      paramLabel = "FILE",
      hidden = true,
      description = "Write the live run's Debezium events to FILE.")
  Path recordTo;

  @Mixin PlatformOptions platform;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    Path state = dir != null ? dir : Files.createTempDirectory("changelake-quickstart-");
    PlatformSettings settings = platform.settings(state, Ports.free(), Ports.free(), Ports.free());
    Logs.toFile(settings.stateDir());
    Optional<Path> postgres = replay ? Optional.empty() : LocalPostgres.installedBin();
    Quickstart quickstart =
        new Quickstart(
            new Quickstart.Options(settings, postgres, Optional.ofNullable(recordTo)), out);
    EmbeddedPlatform running = quickstart.startPlatform();
    // started before the demo, so the console shows the pipeline while it is being built
    List<AutoCloseable> extensions = CliExtension.startWithPlatform(settings, out);
    CountDownLatch stopped = new CountDownLatch(1);
    Runnable stop =
        StopSignals.once(
            () -> {
              CliExtension.closeAll(extensions, out);
              running.close();
              stopped.countDown();
            });
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "changelake-shutdown"));
    StopSignals.install(stop, out);
    try {
      quickstart.run(running);
      if (stayUp) {
        out.println();
        UpCommand.printUp(out, settings);
        stopped.await();
        return ExitCodes.OK;
      }
    } finally {
      // a second time (Ctrl-C, the hook) it does nothing
      stop.run();
    }
    out.printf(
        "Stopped. The lake, topics and logs stay in %s (changelake up --dir %s starts it again).%n",
        settings.stateDir(), settings.stateDir());
    out.flush();
    return ExitCodes.OK;
  }
}
