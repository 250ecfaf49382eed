package io.changelake.configs.cli;

import io.changelake.configs.platform.PlatformException;
import io.changelake.configs.platform.PlatformSettings;
import io.changelake.configs.platform.PluginInstaller;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Options of the embedded platform, shared by {@code up} and {@code quickstart}. */
final class PlatformOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  @Option(
      names = "--kafka-port",
      paramLabel = "PORT",
      description = "Kafka broker port on 127.0.0.1 (up: 9092; quickstart: a free port).")
  Integer kafkaPort;

  @Option(
      names = "--controller-port",
      paramLabel = "PORT",
      description = "KRaft controller port on 127.0.0.1 (up: 9093; quickstart: a free port).")
  Integer controllerPort;

  @Option(
      names = "--connect-port",
      paramLabel = "PORT",
      description = "Connect REST port on 127.0.0.1 (up: 8083; quickstart: a free port).")
  Integer connectPort;

  @Option(
      names = "--plugin-archive",
      paramLabel = "ZIP",
      description =
          "The Changelake plugin archive (default: changelake-kafka-connect-*.zip next to the CLI jar).")
  Path pluginArchive;

  @Option(
      names = "--plugin-path",
      paramLabel = "DIR",
      description = "More plugin directories for the worker's plugin.path (repeatable).")
  List<Path> extraPluginDirs = new ArrayList<>();

  @Option(
      names = "--worker-property",
      paramLabel = "KEY=VALUE",
      description = "Override a Connect worker property (repeatable).")
  Map<String, String> workerOverrides = new LinkedHashMap<>();

  /** Installs the plugins into the state directory and returns the settings to start with. */
  PlatformSettings settings(
      Path stateDir, int defaultKafka, int defaultController, int defaultConnect) {
    Distribution.requirePlatform(command.name());
    Path buildDir = PluginInstaller.buildDir();
    Optional<Path> archive =
        Optional.ofNullable(pluginArchive).or(() -> PluginInstaller.findArchive(buildDir));
    Path absoluteState = stateDir.toAbsolutePath().normalize();
    List<Path> pluginDirs =
        new ArrayList<>(
            PluginInstaller.install(absoluteState.resolve("plugins"), archive, buildDir));
    pluginDirs.addAll(extraPluginDirs.stream().map(p -> p.toAbsolutePath().normalize()).toList());
    if (archive.isEmpty() && extraPluginDirs.isEmpty() && !onClassPath()) {
      throw new PlatformException(
          "No Changelake plugin archive found next to the CLI in "
              + buildDir
              + ". Build it with 'mvn -B -q -DskipTests install', or give --plugin-archive or"
              + " --plugin-path.");
    }
    return new PlatformSettings(
        absoluteState,
        kafkaPort != null ? kafkaPort : defaultKafka,
        controllerPort != null ? controllerPort : defaultController,
        connectPort != null ? connectPort : defaultConnect,
        pluginDirs,
        workerOverrides);
  }

  /** In the build's own tests the connectors are on the class path instead of an archive. */
  private static boolean onClassPath() {
    try {
      Class.forName("io.changelake.sink.ChangelakeSinkConnector");
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
