package io.changelake.sink.task;

import io.changelake.lsm.fault.BrokenWriterException;
import io.changelake.lsm.fault.Failures;
import io.changelake.lsm.fault.LakeException;
import io.changelake.lsm.fault.OutageTracker;
import io.changelake.lsm.fault.WriterFencedException;
import java.util.Optional;

/**
 * The one place the sink decides what a failure means: retried (after dropping everything
 * uncommitted and reading again from the committed offsets), fatal for the task, or the record's
 * own fault (dead-letter queue or task failure, by {@code errors.tolerance}). The task only acts on
 * the decisions.
 *
 * <p>The rules: lsm-writer's {@link Failures} reads the cause chain. A {@link
 * WriterFencedException} (a newer instance writes under the same commit user) or a {@link
 * io.changelake.lsm.fault.LakeDataException} anywhere in it is terminal whatever it wraps, and a
 * fenced task refuses every later batch. Otherwise transient (the object store, the catalog or lock
 * database, the broker away) and within {@code retry.max.duration.ms} is retried, anything else
 * fails the task with what to fix. A retry always discards the writers: a {@link
 * BrokenWriterException} demands it, a {@link io.changelake.lsm.fault.CommitConflictException}
 * needs the table re-read, and a {@link io.changelake.lsm.fault.LakeUnavailableException} leaves
 * nothing worth keeping that the replay does not rebuild. A record-level error (decoding,
 * conversion, schema evolution, routing) is the record's fault unless the lake failed underneath
 * it: a record is never dead-lettered because storage was away.
 */
final class FailurePolicy {

  /** What the task does after a failure. */
  sealed interface Decision {
    /** Drop what is uncommitted, rewind to the committed offsets and try again after a backoff. */
    record Retry(OutageTracker.Decision.Retry outage) implements Decision {}

    /** Fail the task with {@code message}, which names what to fix. */
    record Fail(String message) implements Decision {}
  }

  private final OutageTracker outages;

  FailurePolicy(OutageTracker outages) {
    this.outages = outages;
  }

  /**
   * Decides about a failure of {@code doing} (opening the catalog, writing a batch, committing);
   * counts it towards the current outage when retried.
   */
  Decision onFailure(Throwable error, String doing) {
    OutageTracker.Decision decision = outages.failed(error, doing);
    if (decision instanceof OutageTracker.Decision.GiveUp giveUp) {
      return new Decision.Fail(giveUp.message());
    }
    return new Decision.Retry((OutageTracker.Decision.Retry) decision);
  }

  /**
   * True when a record-level error is the record's fault, so it may go to the dead-letter queue;
   * false when the storage or catalog failed underneath it.
   */
  static boolean isRecordFault(RuntimeException error) {
    return !Failures.isTransient(error);
  }

  /** The fencing in {@code failure}'s cause chain, if a newer instance took over. */
  static Optional<WriterFencedException> fencedBy(Throwable failure) {
    return LakeException.find(failure, WriterFencedException.class);
  }
}
