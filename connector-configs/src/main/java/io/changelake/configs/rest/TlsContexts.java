package io.changelake.configs.rest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/** Builds the SSL context the REST client trusts. */
final class TlsContexts {
  private TlsContexts() {}

  static SSLContext forEndpoint(ConnectEndpoint endpoint) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      if (endpoint.insecure()) {
        // The JDK client checks host names unless this is set before its first use.
        System.setProperty("jdk.internal.httpclient.disableHostnameVerification", "true");
        context.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
      } else if (endpoint.truststore().isPresent()) {
        TrustManagerFactory factory =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(load(endpoint.truststore().get(), endpoint.truststorePassword().orElse("")));
        context.init(null, factory.getTrustManagers(), new SecureRandom());
      } else {
        return SSLContext.getDefault();
      }
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new ConnectRestException(
          "Cannot load the truststore "
              + endpoint.truststore().map(Path::toString).orElse("")
              + ": "
              + e.getMessage()
              + ". Give a PEM file of CA certificates, or a JKS/PKCS12 file with"
              + " --truststore-password.",
          e);
    }
  }

  private static KeyStore load(Path file, String password)
      throws IOException, GeneralSecurityException {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".pem") || name.endsWith(".crt") || name.endsWith(".cer")) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      try (InputStream in = Files.newInputStream(file)) {
        int i = 0;
        for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
          store.setCertificateEntry("ca-" + i++, cert);
        }
      }
      return store;
    }
    return KeyStore.getInstance(file.toFile(), password.toCharArray());
  }

  /** Accepts every certificate: only behind --insecure. */
  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
