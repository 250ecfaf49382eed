package io.changelake.console;

import io.changelake.configs.rest.ConnectClient;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What a console serves and how it is reached.
 *
 * @param bind address and port to listen on (port 0: any free port)
 * @param connect the Connect REST API the pipelines run on
 * @param catalogOptions Paimon catalog options (without the {@code paimon.} prefix), at least
 *     {@code warehouse}
 * @param bootstrapServers Kafka, for consumer lag and dead letters; without it those stay empty
 * @param actionsEnabled pause, resume and restart are allowed (off: the console is read-only)
 * @param login basic-auth user and password the browser must give
 * @param tls the server's key store; the console then serves https only
 */
public record ConsoleSettings(
    InetSocketAddress bind,
    ConnectClient connect,
    Map<String, String> catalogOptions,
    Optional<String> bootstrapServers,
    boolean actionsEnabled,
    Optional<Login> login,
    Optional<ServerTls> tls) {

  public ConsoleSettings {
    catalogOptions = Map.copyOf(catalogOptions);
  }

  /** A basic-auth user. */
  public record Login(String user, String password) {
    @Override
    public String toString() {
      return "Login[" + user + "]";
    }
  }

  /** A PKCS12 or JKS key store holding the console's certificate and key. */
  public record ServerTls(Path keyStore, String password) {
    @Override
    public String toString() {
      return "ServerTls[" + keyStore + "]";
    }
  }

  /**
   * Refuses settings that would expose the console: off the loopback interface it needs a login and
   * TLS, since it shows every connector, topic and table (and with actions can stop them).
   */
  public void checkSafe() {
    if (bind.getAddress() != null && bind.getAddress().isLoopbackAddress()) {
      return;
    }
    if (login.isEmpty() || tls.isEmpty()) {
      throw new IllegalArgumentException(
          "The console binds to "
              + bind.getHostString()
              + ", which is not a loopback address: give --console-user/--console-password and"
              + " --tls-keystore so that it is served with a login over https, or bind to"
              + " 127.0.0.1 (the default) and reach it through an SSH tunnel.");
    }
  }
}
