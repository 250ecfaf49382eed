package io.changelake.console;

import io.changelake.configs.cli.CliExtension;
import io.changelake.configs.platform.PlatformSettings;
import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectEndpoint;
import io.changelake.console.server.ConsoleServer;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Adds {@code changelake console}, and starts a read-only console with {@code up} and {@code
 * quickstart} (found by {@link java.util.ServiceLoader} when this module is on the class path).
 */
public final class ConsoleExtension implements CliExtension {
  @Override
  public Object command() {
    return new ConsoleCommand();
  }

  @Override
  public List<AutoCloseable> platformUp(PlatformSettings platform, PrintWriter out) {
    ConsoleServer server;
    try {
      server = ConsoleServer.start(settings(platform, ConsoleCommand.DEFAULT_PORT));
    } catch (UncheckedIOException e) {
      // the usual port is taken (another console, another 'up'): any free one will do
      server = ConsoleServer.start(settings(platform, 0));
    }
    out.printf("  console                  %s%n", server.url());
    out.flush();
    return List.of(server);
  }

  static ConsoleSettings settings(PlatformSettings platform, int port) {
    return new ConsoleSettings(
        new InetSocketAddress("127.0.0.1", port),
        new ConnectClient(ConnectEndpoint.plain(platform.connectUrl())),
        Map.of("warehouse", platform.warehouse().toUri().toString()),
        Optional.of(platform.bootstrapServers()),
        false,
        Optional.empty(),
        Optional.empty());
  }
}
