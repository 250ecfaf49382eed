package io.changelake.configs.rest;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How to reach one Kafka Connect REST API.
 *
 * @param url base URL, e.g. {@code http://localhost:8083}
 * @param username basic-auth user, when the worker runs a basic-auth REST extension
 * @param password basic-auth password
 * @param truststore PEM, JKS or PKCS12 file with the CA certificates to trust for https
 * @param truststorePassword password of a JKS or PKCS12 truststore
 * @param insecure trust any certificate and host name (development only)
 */
public record ConnectEndpoint(
    URI url,
    Optional<String> username,
    Optional<String> password,
    Optional<Path> truststore,
    Optional<String> truststorePassword,
    boolean insecure) {

  public static ConnectEndpoint plain(String url) {
    return new ConnectEndpoint(
        URI.create(url),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        false);
  }
}
