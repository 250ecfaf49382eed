package io.changelake.lsm.fault;

import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The one place that decides whether a failure is worth waiting for. Both connectors ask it, for
 * every exception that reaches their task loop.
 *
 * <p>The whole cause chain is read, outermost first, because Paimon and Hadoop wrap what really
 * happened ({@code RuntimeException} around {@code UncheckedIOException} around the S3A exception).
 * A terminal sign anywhere in the chain wins: a 403 wrapped in an {@code IOException} stays a 403.
 * Otherwise the outermost transient sign decides, and names the dependency: a {@code PSQLException}
 * caused by a refused connection is the catalog database, not the object store.
 *
 * <p>lsm-writer's own {@link LakeException}s keep their cause, so the chain decides for them too,
 * except that a {@link WriterFencedException} or a {@link LakeDataException} is terminal whatever
 * it wraps.
 *
 * <p>Classes of other libraries are recognised by name, not {@code instanceof}: {@code paimon-s3}
 * loads Hadoop's S3A and the AWS SDK in a class loader of its own, so their classes are not the
 * ones this module could link against.
 */
public final class Failures {
  /** Exceptions (simple class names) that mean a person must act: retrying cannot help. */
  private static final Set<String> TERMINAL_TYPES =
      Set.of(
          // S3A: HTTP 403, and the bucket or the whole endpoint's store does not exist
          "AccessDeniedException",
          "PathAccessDeniedException",
          "UnknownStoreException",
          "NoSuchBucketException",
          "AWSBadRequestException",
          "AWSRedirectException",
          "NoAuthWithAWSException",
          "CredentialInitializationException",
          // a file that should be there is not, or ends early: corrupt or deleted by hand
          "FileNotFoundException",
          "NoSuchFileException",
          "EOFException",
          "UnknownHostException",
          // Kafka: credentials and ACLs
          "AuthenticationException",
          "AuthorizationException",
          "SaslAuthenticationException",
          "TopicAuthorizationException");

  /** Words of S3 error codes that mean bad credentials or a missing bucket. */
  private static final List<String> TERMINAL_WORDS =
      List.of(
          "access denied",
          "invalidaccesskeyid",
          "signaturedoesnotmatch",
          "nosuchbucket",
          "the specified bucket does not exist");

  /** Exceptions of the object store's client that mean it is down, slow or overloaded. */
  private static final Set<String> OBJECT_STORE_TYPES =
      Set.of(
          "AWSServiceThrottledException", // 503 SlowDown
          "AWSStatus500Exception",
          "AWSApiCallTimeoutException",
          "AWSClientIOException",
          "SdkClientException",
          "AmazonClientException",
          "ConnectTimeoutException",
          "NoHttpResponseException",
          "ConnectionClosedException",
          "InterruptedIOException");

  /** SQLSTATE classes (first two characters) of PostgreSQL and the SQL standard worth waiting. */
  private static final Set<String> TRANSIENT_SQL_CLASSES =
      Set.of(
          "08", // connection exception: refused, broken, server gone
          "40", // transaction rollback: serialization failure, deadlock
          "53", // insufficient resources: too many connections, disk full, out of memory
          "57", // operator intervention: admin shutdown, crash shutdown, cannot connect now
          "58"); // system error (I/O error of the database server)

  /** {@code lock_not_available}: a lock wait ran out. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /** Paimon's {@code JdbcCatalogLock} when {@code lock-acquire-timeout} ran out. */
  private static final String LOCK_TIMEOUT_MESSAGE = "acquire lock failed";

  private static final Set<String> KAFKA_RETRIABLE =
      Set.of(
          "org.apache.kafka.common.errors.RetriableException",
          "org.apache.kafka.connect.errors.RetriableException");

  private Failures() {}

  /** Classifies {@code error} by its cause chain; never null. */
  public static Failure classify(Throwable error) {
    Failure.Transient generic = null;
    List<Throwable> chain = chain(error);
    for (int i = 0; i < chain.size(); i++) {
      Throwable t = chain.get(i);
      if (t instanceof WriterFencedException || t instanceof LakeDataException) {
        // typed by lsm-writer as never retriable: no cause they wrap may make them transient, but
        // a terminal sign below (a missing file) still says what to check
        String below = firstTerminalSign(chain.subList(i + 1, chain.size()));
        return new Failure.Terminal(
            error, "never retried: " + describe(t) + (below == null ? "" : hint(below)));
      }
      String terminal = terminalSign(t);
      if (terminal != null) {
        return new Failure.Terminal(error, terminal + hint(terminal));
      }
      Failure.Transient transientFailure = transientSign(error, t);
      if (transientFailure != null && !isGenericIo(t)) {
        // a specific sign (a broken database connection, a refused S3 request) decides: what it
        // wraps, e.g. the EOFException of a connection cut mid-read, is its detail
        return transientFailure;
      }
      if (generic == null) {
        generic = transientFailure;
      }
    }
    if (generic != null) {
      // a plain IOException, with nothing more telling below it
      return generic;
    }
    return new Failure.Terminal(error, "not a known transient failure: " + describe(error));
  }

  private static boolean isGenericIo(Throwable t) {
    return t instanceof IOException
        && !OBJECT_STORE_TYPES.contains(t.getClass().getSimpleName())
        && !(t instanceof java.net.SocketException)
        && !(t instanceof java.net.SocketTimeoutException);
  }

  /** True when {@link #classify} finds {@code error} transient. */
  public static boolean isTransient(Throwable error) {
    return classify(error) instanceof Failure.Transient;
  }

  /** What to check, for the failures a user can fix by configuration. */
  private static String hint(String sign) {
    String s = sign.toLowerCase(Locale.ROOT);
    if (s.contains("accessdenied")
        || s.contains("access denied")
        || s.contains("invalidaccesskeyid")
        || s.contains("signaturedoesnotmatch")
        || s.contains("credential")
        || s.contains("noauth")) {
      return " — the object store refused the credentials or the permission: check"
          + " paimon.s3.access-key and paimon.s3.secret-key (or the credentials provider) and the"
          + " bucket's policy";
    }
    if (s.contains("unknownstore") || s.contains("nosuchbucket") || s.contains("bucket does not")) {
      return " — the bucket does not exist: check the bucket in paimon.warehouse";
    }
    if (s.contains("sqlstate 28")) {
      return " — the catalog database refused the login: check paimon.jdbc.user and"
          + " paimon.jdbc.password";
    }
    if (s.contains("sqlstate 3d")) {
      return " — the catalog database does not exist: check paimon.uri";
    }
    if (s.contains("unknownhost")) {
      return " — check the host names in paimon.s3.endpoint and paimon.uri";
    }
    if (s.contains("filenotfound") || s.contains("nosuchfile") || s.contains("eofexception")) {
      return " — a file of the table is missing or cut short: it was deleted or corrupted"
          + " outside the connector";
    }
    return "";
  }

  private static String firstTerminalSign(List<Throwable> causes) {
    for (Throwable t : causes) {
      String sign = terminalSign(t);
      if (sign != null) {
        return sign;
      }
    }
    return null;
  }

  private static String terminalSign(Throwable t) {
    String name = t.getClass().getSimpleName();
    if (TERMINAL_TYPES.contains(name)) {
      return describe(t);
    }
    if (t instanceof SQLException sql && !isTransientSql(sql) && sql.getSQLState() != null) {
      // 28: invalid authorization (wrong password), 3D: no such database, 42: no such table or
      // no permission; other states are decided by the rest of the chain
      String state = sql.getSQLState();
      if (state.startsWith("28") || state.startsWith("3D") || state.startsWith("42")) {
        return describe(t) + " (SQLSTATE " + state + ")";
      }
    }
    String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
    for (String word : TERMINAL_WORDS) {
      if (message.contains(word)) {
        return describe(t);
      }
    }
    return null;
  }

  private static Failure.Transient transientSign(Throwable error, Throwable t) {
    if (t instanceof SQLException sql && isTransientSql(sql)) {
      String state = sql.getSQLState() == null ? "" : " (SQLSTATE " + sql.getSQLState() + ")";
      return new Failure.Transient(Dependency.CATALOG, error, describe(t) + state);
    }
    String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
    if (message.startsWith(LOCK_TIMEOUT_MESSAGE)) {
      return new Failure.Transient(Dependency.CATALOG, error, "lock wait ran out: " + describe(t));
    }
    if (isKafkaRetriable(t.getClass())) {
      return new Failure.Transient(Dependency.BROKER, error, describe(t));
    }
    if (OBJECT_STORE_TYPES.contains(t.getClass().getSimpleName())
        || t instanceof java.net.SocketException
        || t instanceof java.net.SocketTimeoutException
        || t instanceof IOException) {
      return new Failure.Transient(Dependency.OBJECT_STORE, error, describe(t));
    }
    return null;
  }

  private static boolean isTransientSql(SQLException sql) {
    if (sql instanceof java.sql.SQLTransientException
        || sql instanceof java.sql.SQLRecoverableException
        || sql instanceof java.sql.SQLNonTransientConnectionException) {
      return true;
    }
    String state = sql.getSQLState();
    return state != null
        && (LOCK_NOT_AVAILABLE.equals(state)
            || (state.length() >= 2 && TRANSIENT_SQL_CLASSES.contains(state.substring(0, 2))));
  }

  private static boolean isKafkaRetriable(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (KAFKA_RETRIABLE.contains(c.getName())) {
        return true;
      }
    }
    return false;
  }

  /** The exception and its causes, outermost first, each once. */
  private static List<Throwable> chain(Throwable error) {
    List<Throwable> chain = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = error; t != null && seen.put(t, true) == null; t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private static String describe(Throwable t) {
    return t.getClass().getName() + ": " + t.getMessage();
  }
}
