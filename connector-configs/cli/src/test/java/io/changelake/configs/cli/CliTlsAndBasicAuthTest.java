package io.changelake.configs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection options against an https endpoint that demands basic auth: a small stand-in for a
 * Connect worker with TLS listeners and the basic-auth REST extension, answering two endpoints.
 */
class CliTlsAndBasicAuthTest {
  @TempDir static Path dir;
  private static HttpsServer server;
  private static String url;
  private static Path pem;

  @BeforeAll
  static void startServer() throws Exception {
    Path keystore = dir.resolve("server.p12");
    keytool(
        "-genkeypair",
        "-alias",
        "connect",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=localhost",
        "-ext",
        "SAN=ip:127.0.0.1,dns:localhost",
        "-keystore",
        keystore.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        "changeit");
    pem = dir.resolve("ca.pem");
    keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "connect",
        "-keystore",
        keystore.toString(),
        "-storepass",
        "changeit",
        "-file",
        pem.toString());

    KeyStore store = KeyStore.getInstance(keystore.toFile(), "changeit".toCharArray());
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, "changeit".toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);

    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    String expected =
        "Basic "
            + Base64.getEncoder().encodeToString("ops:s3cret".getBytes(StandardCharsets.UTF_8));
    server.createContext(
        "/",
        exchange -> {
          if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            answer(
                exchange,
                401,
                "{\"error_code\":401,\"message\":\"User cannot access the resource.\"}");
          } else if (exchange.getRequestURI().getPath().equals("/connectors")) {
            answer(exchange, 200, "[\"orders\"]");
          } else if (exchange.getRequestURI().getPath().equals("/connectors/orders/status")) {
            answer(
                exchange,
                200,
                "{\"name\":\"orders\",\"type\":\"sink\",\"connector\":{\"state\":\"RUNNING\","
                    + "\"worker_id\":\"w1:8083\"},\"tasks\":[{\"id\":0,\"state\":\"RUNNING\","
                    + "\"worker_id\":\"w1:8083\"}]}");
          } else {
            answer(exchange, 404, "{\"error_code\":404,\"message\":\"not found\"}");
          }
        });
    server.start();
    url = "https://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterAll
  static void stopServer() {
    server.stop(0);
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (InputStream out = process.getInputStream()) {
      String text = new String(out.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).as(text).isZero();
    }
  }

  @Test
  void trustsTheGivenCaAndSendsBasicAuth() {
    CliRun run =
        CliRun.of(
            "status",
            "--connect-url",
            url,
            "--truststore",
            pem.toString(),
            "--user",
            "ops",
            "--password=s3cret");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("orders (sink): RUNNING on w1:8083").contains("task 0");
  }

  @Test
  void aWrongPasswordExitsWithThreeAndSaysWhatToCheck() {
    CliRun run =
        CliRun.of(
            "status",
            "--connect-url",
            url,
            "--truststore",
            pem.toString(),
            "--user",
            "ops",
            "--password=wrong");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.CONNECT_ERROR);
    assertThat(run.err())
        .contains("answered 401: User cannot access the resource.")
        .contains("--user and --password")
        .doesNotContain("wrong");
  }

  @Test
  void anUntrustedCertificateIsRefusedUnlessInsecure() {
    CliRun refused = CliRun.of("status", "--connect-url", url, "-u", "ops", "--password=s3cret");
    assertThat(refused.exitCode()).as(refused.all()).isEqualTo(ExitCodes.CONNECT_ERROR);
    assertThat(refused.err()).contains("Cannot reach Kafka Connect at " + url);

    CliRun insecure =
        CliRun.of("status", "--connect-url", url, "-u", "ops", "--password=s3cret", "--insecure");
    assertThat(insecure.exitCode()).as(insecure.all()).isEqualTo(ExitCodes.OK);
    assertThat(insecure.out()).contains("orders (sink): RUNNING");
  }

  @Test
  void aTruststoreFileThatIsNotACertificateIsNamed() throws IOException {
    Path bogus = Files.writeString(dir.resolve("bogus.pem"), "not a certificate");

    CliRun run = CliRun.of("status", "--connect-url", url, "--truststore", bogus.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.CONNECT_ERROR);
    assertThat(run.err()).contains("Cannot load the truststore").contains("bogus.pem");
  }
}
