package io.changelake.e2e.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** A PKCS12 key store with a fresh self-signed certificate for 127.0.0.1, made with keytool. */
final class SelfSignedCertificate {
  private SelfSignedCertificate() {}

  static Path create(Path keyStore, String password) {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command =
        List.of(
            keytool.toString(),
            "-genkeypair",
            "-alias",
            "console",
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
            "-storetype",
            "PKCS12",
            "-keystore",
            keyStore.toString(),
            "-storepass",
            password,
            "-keypass",
            password);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes());
      if (process.waitFor() != 0) {
        throw new IllegalStateException("keytool failed: " + output);
      }
      return keyStore;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
