package io.changelake.console;

import io.changelake.configs.cli.ConnectOptions;
import io.changelake.console.server.ConsoleServer;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "console",
    description = {
      "Serves the web console: each pipeline from the database through topics, the Changelake"
          + " sink, lake tables and the changelog source to their consumers, with connector and"
          + " task states, lag and freshness; tables' commits, schema history, files and rows;"
          + " dead letters; connectors with their config (secrets masked).",
      "Read-only and on 127.0.0.1 unless told otherwise. Stop with Ctrl-C."
    })
public final class ConsoleCommand implements Callable<Integer> {
  /** The console's port unless --port says otherwise. */
  public static final int DEFAULT_PORT = 8090;

  @Mixin ConnectOptions connect;

  @Option(
      names = {"-w", "--warehouse"},
      paramLabel = "URI",
      required = true,
      description = "The lake: the Paimon warehouse the sinks write (a path, file: or s3:// URI).")
  String warehouse;

  @Option(
      names = "--paimon",
      paramLabel = "KEY=VALUE",
      description =
          "More Paimon catalog options, named as in the connectors without 'paimon.' (repeatable),"
              + " e.g. --paimon s3.endpoint=http://minio:9000.")
  Map<String, String> paimon = new LinkedHashMap<>();

  @Option(
      names = {"-b", "--bootstrap-servers"},
      paramLabel = "HOSTS",
      description = "Kafka bootstrap servers, for consumer lag and dead letters.")
  String bootstrapServers;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      defaultValue = "127.0.0.1",
      description =
          "Address to listen on (default: 127.0.0.1). Any other needs --console-user and"
              + " --tls-keystore.")
  String bind;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "" + DEFAULT_PORT,
      description = "Port to listen on (default: " + DEFAULT_PORT + "; 0: any free port).")
  int port;

  @Option(
      names = "--enable-actions",
      description = "Allow pause, resume and restart of connectors from the console.")
  boolean enableActions;

  @Option(
      names = "--console-user",
      paramLabel = "USER",
      description = "Basic-auth user the browser must give.")
  String consoleUser;

  @Option(
      names = "--console-password",
      paramLabel = "PASSWORD",
      arity = "0..1",
      interactive = true,
      defaultValue = "${env:CHANGELAKE_CONSOLE_PASSWORD}",
      description =
          "Basic-auth password the browser must give; without a value it is prompted for"
              + " (default: $CHANGELAKE_CONSOLE_PASSWORD).")
  String consolePassword;

  @Option(
      names = "--tls-keystore",
      paramLabel = "FILE",
      description =
          "PKCS12 (or .jks) key store with the console's key and certificate: serve https.")
  Path tlsKeyStore;

  @Option(
      names = "--tls-keystore-password",
      paramLabel = "PASSWORD",
      defaultValue = "${env:CHANGELAKE_CONSOLE_KEYSTORE_PASSWORD}",
      description = "Password of the key store (default: $CHANGELAKE_CONSOLE_KEYSTORE_PASSWORD).")
  String tlsKeyStorePassword;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    Map<String, String> catalog = new LinkedHashMap<>(paimon);
    catalog.put("warehouse", warehouse);
    if (consoleUser != null && consolePassword == null) {
      throw new IllegalArgumentException("--console-user needs --console-password");
    }
    ConsoleSettings settings =
        new ConsoleSettings(
            new InetSocketAddress(bind, port),
            connect.client(),
            catalog,
            Optional.ofNullable(bootstrapServers),
            enableActions,
            Optional.ofNullable(consoleUser)
                .map(user -> new ConsoleSettings.Login(user, consolePassword)),
            Optional.ofNullable(tlsKeyStore)
                .map(
                    store ->
                        new ConsoleSettings.ServerTls(
                            store, tlsKeyStorePassword == null ? "" : tlsKeyStorePassword)));
    ConsoleServer server = ConsoleServer.start(settings);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                },
                "changelake-console-shutdown"));
    out.printf(
        "Changelake console at %s (%s)%n",
        server.url(), enableActions ? "actions enabled" : "read-only");
    out.println("Press Ctrl-C to stop.");
    out.flush();
    stopped.await();
    return 0;
  }
}
