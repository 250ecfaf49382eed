package io.changelake.configs.cli;

import io.changelake.configs.platform.EmbeddedPlatform;
import io.changelake.configs.platform.PlatformSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "up",
    description = {
      "Runs a local platform in this process: a single-node KRaft Kafka broker and a Connect worker"
          + " (distributed mode) with the Changelake and Debezium PostgreSQL plugins, on 127.0.0.1."
          + " All state (topics, connectors, offsets, tables) lives in --dir and survives a"
          + " restart. Stop with Ctrl-C.",
      "Deploy connectors to it with: changelake deploy FILE... (default URL"
          + " http://localhost:8083)."
    })
final class UpCommand implements Callable<Integer> {
  @Option(
      names = "--dir",
      paramLabel = "DIR",
      defaultValue = "changelake-state",
      description = "State directory (default: ./changelake-state).")
  Path dir;

  @Mixin PlatformOptions platform;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PlatformSettings settings = platform.settings(dir, 9092, 9093, 8083);
    Logs.toFile(settings.stateDir());
    out.printf("Starting Kafka and Connect in %s ...%n", settings.stateDir());
    out.flush();
    EmbeddedPlatform running = EmbeddedPlatform.start(settings);
    // started after the signals are handled (so a SIGTERM right after "is up" stops in order):
    // a stop may come while they start
    List<AutoCloseable> extensions = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch stopped = new CountDownLatch(1);
    Runnable stop =
        StopSignals.once(
            () -> {
              out.println("Stopping Connect, then Kafka ...");
              out.flush();
              synchronized (extensions) {
                CliExtension.closeAll(extensions, out);
              }
              running.close();
              out.println("Stopped. State kept in " + settings.stateDir());
              out.flush();
              stopped.countDown();
            });
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "changelake-shutdown"));
    StopSignals.install(stop, out);
    printUp(out, settings);
    extensions.addAll(CliExtension.startWithPlatform(settings, out));
    stopped.await();
    return ExitCodes.OK;
  }

  static void printUp(PrintWriter out, PlatformSettings settings) {
    out.println("Changelake platform is up.");
    out.printf("  Kafka bootstrap servers  %s%n", settings.bootstrapServers());
    out.printf("  Connect REST API         %s%n", settings.connectUrl());
    out.printf("  plugin.path              %s%n", settings.pluginDirs());
    out.printf("  lake (paimon.warehouse)  %s%n", settings.warehouse());
    out.printf("  logs                     %s%n", Logs.file(settings.stateDir()));
    out.println("Press Ctrl-C to stop; the state stays for the next 'changelake up'.");
    out.flush();
  }
}
