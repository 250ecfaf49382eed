package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectEndpoint;
import io.changelake.configs.rest.RebalanceRetry;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * Where the Connect REST API is and how to authenticate; shared by every remote command (public for
 * commands contributed by other modules through {@link CliExtension}).
 */
public final class ConnectOptions {
  @Option(
      names = {"-c", "--connect-url"},
      paramLabel = "URL",
      defaultValue = "${env:CONNECT_URL:-http://localhost:8083}",
      description =
          "Kafka Connect REST URL, http or https (default: $CONNECT_URL, else"
              + " http://localhost:8083).")
  String url;

  @Option(
      names = {"-u", "--user"},
      paramLabel = "USER",
      defaultValue = "${env:CONNECT_USER}",
      description = "Basic-auth user (default: $CONNECT_USER).")
  String user;

  @Option(
      names = {"-p", "--password"},
      paramLabel = "PASSWORD",
      arity = "0..1",
      interactive = true,
      defaultValue = "${env:CONNECT_PASSWORD}",
      description =
          "Basic-auth password; without a value it is prompted for (default: $CONNECT_PASSWORD)."
              + " Prefer the variable or the prompt: arguments are visible to other users.")
  String password;

  @Option(
      names = "--truststore",
      paramLabel = "FILE",
      description = "CA certificates to trust for https: a PEM file, or a JKS/PKCS12 truststore.")
  Path truststore;

  @Option(
      names = "--truststore-password",
      paramLabel = "PASSWORD",
      defaultValue = "${env:CONNECT_TRUSTSTORE_PASSWORD}",
      description = "Password of a JKS/PKCS12 truststore (default: $CONNECT_TRUSTSTORE_PASSWORD).")
  String truststorePassword;

  @Option(
      names = {"-k", "--insecure"},
      description = "Trust any certificate and host name (development only).")
  boolean insecure;

  @Option(
      names = "--retries",
      paramLabel = "N",
      defaultValue = "6",
      description =
          "How often a call answered with 409 (Connect rebalancing) is retried, with a backoff"
              + " doubling from 0.5s to 8s (default: 6, about 25s in all; 0: never).")
  int retries;

  /** A client that retries quietly (for long-running commands with no terminal to tell). */
  public ConnectClient client() {
    return client(notice -> {});
  }

  /** A client that tells {@code notices} of each retry. */
  public ConnectClient client(Consumer<String> notices) {
    RebalanceRetry retry =
        new RebalanceRetry(
            Math.max(0, retries) + 1,
            RebalanceRetry.DEFAULT.firstBackoff(),
            RebalanceRetry.DEFAULT.maxBackoff());
    return new ConnectClient(
        new ConnectEndpoint(
            URI.create(url),
            Optional.ofNullable(user).filter(s -> !s.isBlank()),
            Optional.ofNullable(password),
            Optional.ofNullable(truststore),
            Optional.ofNullable(truststorePassword),
            insecure),
        retry,
        notices);
  }
}
