package io.changelake.lsm.fault;

/**
 * What {@link Failures#classify} made of an exception: worth waiting for ({@link Transient}), or
 * not ({@link Terminal}: a person has to change something).
 */
public sealed interface Failure {
  /** The exception as thrown. */
  Throwable error();

  /** Why it was put in this class, naming the exception in the cause chain that decided it. */
  String reason();

  /** A dependency is down or overloaded; the same call is expected to succeed later. */
  record Transient(Dependency dependency, Throwable error, String reason) implements Failure {}

  /** Retrying cannot help: bad configuration, missing permissions or data, a bug. */
  record Terminal(Throwable error, String reason) implements Failure {}
}
