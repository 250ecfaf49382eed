package io.changelake.lsm.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FailuresTest {

  /** Stand-ins with the simple names of S3A's exceptions (loaded by paimon-s3's class loader). */
  static final class AWSServiceThrottledException extends IOException {
    AWSServiceThrottledException(String message) {
      super(message);
    }
  }

  static final class UnknownStoreException extends IOException {
    UnknownStoreException(String message) {
      super(message);
    }
  }

  static final class AWSClientIOException extends IOException {
    AWSClientIOException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Paimon's way of reporting: a runtime exception around an unchecked one around the cause. */
  private static RuntimeException paimon(Throwable cause) {
    IOException io = cause instanceof IOException e ? e : new IOException(cause);
    return new RuntimeException("Failed to commit", new UncheckedIOException(io));
  }

  static Stream<Arguments> transientFailures() {
    return Stream.of(
        Arguments.of(
            "S3 endpoint refusing connections",
            paimon(
                new AWSClientIOException(
                    "getFileStatus on s3://lake/x", new ConnectException("Connection refused"))),
            Dependency.OBJECT_STORE),
        Arguments.of(
            "S3 503 SlowDown",
            paimon(new AWSServiceThrottledException("503 SlowDown")),
            Dependency.OBJECT_STORE),
        Arguments.of(
            "a read timing out",
            paimon(new SocketTimeoutException("Read timed out")),
            Dependency.OBJECT_STORE),
        Arguments.of(
            "PostgreSQL refusing connections (SQLSTATE 08001)",
            new RuntimeException(
                "Failed to get table",
                new SQLException(
                    "Connection to 127.0.0.1:5432 refused",
                    "08001",
                    new ConnectException("Connection refused"))),
            Dependency.CATALOG),
        Arguments.of(
            "PostgreSQL shutting down (57P01)",
            new RuntimeException(
                new SQLException("terminating connection due to administrator command", "57P01")),
            Dependency.CATALOG),
        Arguments.of(
            "a pool out of connections",
            new RuntimeException(new SQLTransientConnectionException("no connection")),
            Dependency.CATALOG),
        Arguments.of(
            "Paimon's JDBC lock wait running out",
            new RuntimeException(
                "commit failed", new RuntimeException("Acquire lock failed with time: PT8M")),
            Dependency.CATALOG));
  }

  @ParameterizedTest(name = "{0} is transient, waiting on {2}")
  @MethodSource("transientFailures")
  void transientFailuresNameTheirDependency(String what, Throwable error, Dependency dependency) {
    Failure failure = Failures.classify(error);
    assertThat(failure).isInstanceOf(Failure.Transient.class);
    assertThat(((Failure.Transient) failure).dependency()).isEqualTo(dependency);
    assertThat(failure.error()).isSameAs(error);
  }

  static Stream<Arguments> terminalFailures() {
    return Stream.of(
        Arguments.of(
            "S3 access denied (403), even inside an IOException",
            paimon(new IOException(new AccessDeniedException("s3://lake/x: 403 Forbidden"))),
            "AccessDeniedException"),
        Arguments.of(
            "a wrong access key, reported as a client error",
            paimon(
                new AWSClientIOException(
                    "The AWS Access Key Id you provided does not exist: InvalidAccessKeyId", null)),
            "InvalidAccessKeyId"),
        Arguments.of(
            "a bucket that does not exist",
            paimon(new UnknownStoreException("s3a://nobucket/: Bucket nobucket does not exist")),
            "UnknownStoreException"),
        Arguments.of(
            "a file cut short (corrupt)",
            paimon(new java.io.EOFException("Reached the end of stream")),
            "EOFException"),
        Arguments.of(
            "a wrong database password (28P01)",
            new RuntimeException(
                new SQLException("password authentication failed for user \"x\"", "28P01")),
            "28P01"),
        Arguments.of(
            "a schema error",
            new IllegalArgumentException("Cannot narrow BIGINT to INT"),
            "narrow"));
  }

  @ParameterizedTest(name = "{0} is terminal")
  @MethodSource("terminalFailures")
  void terminalFailuresSayWhy(String what, Throwable error, String named) {
    Failure failure = Failures.classify(error);
    assertThat(failure).isInstanceOf(Failure.Terminal.class);
    assertThat(failure.reason()).contains(named);
  }
}
