package io.changelake.configs.cli;

import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectRestException;
import io.changelake.configs.rest.ConnectorState;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** Polls a connector's status until it reaches a state, fails, or time runs out. */
final class ConnectorWaiter {
  private static final Duration POLL = Duration.ofMillis(500);

  /** How waiting ended, with the last state seen (null if the connector never showed up). */
  record Outcome(Result result, ConnectorState last) {}

  enum Result {
    REACHED,
    FAILED,
    TIMEOUT
  }

  private ConnectorWaiter() {}

  /**
   * Waits until the connector and all its tasks have been RUNNING for {@code settle} without
   * interruption: right after a config update the old tasks still report RUNNING for a moment, and
   * a task that fails on start usually does so within that time.
   */
  static Outcome untilRunning(
      ConnectClient client,
      String name,
      Duration timeout,
      Duration settle,
      Consumer<ConnectorState> onPoll) {
    return until(client, name, timeout, settle, ConnectorState::fullyRunning, onPoll);
  }

  /** Waits until the connector is STOPPED and has no tasks left (KIP-875). */
  static Outcome untilStopped(ConnectClient client, String name, Duration timeout) {
    return until(
        client,
        name,
        timeout,
        Duration.ZERO,
        s -> ConnectorState.STOPPED.equals(s.connector().state()) && s.tasks().isEmpty(),
        s -> {});
  }

  private static Outcome until(
      ConnectClient client,
      String name,
      Duration timeout,
      Duration settle,
      Predicate<ConnectorState> reached,
      Consumer<ConnectorState> onPoll) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long reachedSince = -1;
    ConnectorState last = null;
    while (true) {
      try {
        last = client.status(name);
        onPoll.accept(last);
      } catch (ConnectRestException e) {
        // A connector just created has no status until the herder has started it.
        if (!e.notFound()) {
          throw e;
        }
      }
      long now = System.nanoTime();
      if (last != null && last.anyFailed()) {
        return new Outcome(Result.FAILED, last);
      }
      if (last != null && reached.test(last)) {
        if (reachedSince < 0) {
          reachedSince = now;
        }
        if (now - reachedSince >= settle.toNanos()) {
          return new Outcome(Result.REACHED, last);
        }
      } else {
        reachedSince = -1;
      }
      if (now > deadline) {
        return new Outcome(Result.TIMEOUT, last);
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Outcome(Result.TIMEOUT, last);
      }
    }
  }
}
