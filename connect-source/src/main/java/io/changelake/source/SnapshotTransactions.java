package io.changelake.source;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;

/**
 * Where the task's Kafka transactions end with {@code transaction.boundary=connector}: at the end
 * of each snapshot, and earlier when a snapshot's transaction has been open for {@code
 * transaction.max.duration.ms}. The broker aborts a transaction open past the producer's {@code
 * transaction.timeout.ms}; a snapshot published in one transaction whatever its size (a full-state
 * read of a large table) then fails at the same position on every retry. Ending it after a batch is
 * safe: every record carries the offset of its own row, so a transaction commits exactly the rows
 * it holds and a restart resumes at the next one.
 *
 * <p>The bound is kept on the task's side, so it also holds back the task: Connect sends what poll
 * returns asynchronously, and a producer slower than the reader (a busy broker, a quota) would
 * otherwise collect a backlog that the commit at the bound has to flush, past the timeout. Once
 * {@link #MAX_IN_FLIGHT} returned records are not yet acknowledged, {@link #mustWait} ends the open
 * transaction, so a commit never waits for much more than that many records.
 *
 * <p>Without a transaction context (exactly-once off, or another boundary) no transaction is
 * requested, but the task is held back all the same ({@link #awaitRoom}): Connect keeps every
 * record it sent until Kafka acknowledges it, with its structs and its serialized bytes, and a
 * producer whose {@code buffer.memory} lets the task run far ahead of the broker keeps thousands of
 * them alive. Every young collection then copies that backlog and promotes most of it, which costs
 * more than the waiting does (docs/benchmarks.md, section 4).
 *
 * <p>Used from the task thread only, except {@link #acknowledged} (producer callback thread) and
 * {@link #release} (the thread stopping the task).
 */
final class SnapshotTransactions {
  /** Records returned by poll and not yet acknowledged by Kafka, at most, before poll waits. */
  static final long MAX_IN_FLIGHT = 2_000;

  private final TransactionContext context;
  private final AtomicLong inFlight = new AtomicLong();
  private final long maxOpenNanos;
  private final LongSupplier nanoClock;

  // the task thread waits on this in awaitRoom while waiting is set; acknowledged wakes it
  private final Object room = new Object();
  private volatile boolean waiting;
  private volatile boolean released;

  /** When the open transaction got its first record, or -1 when none is open. */
  private long openedAt = -1;

  SnapshotTransactions(TransactionContext context, Duration maxOpen, LongSupplier nanoClock) {
    this.context = context;
    this.maxOpenNanos = maxOpen.toNanos();
    this.nanoClock = nanoClock;
  }

  /**
   * The task returns {@code records}, the next batch of a snapshot; {@code endOfSnapshot} when the
   * batch ends it.
   */
  void returning(List<SourceRecord> records, boolean endOfSnapshot) {
    inFlight.addAndGet(records.size());
    if (context == null) {
      return;
    }
    long now = nanoClock.getAsLong();
    if (!records.isEmpty() && openedAt < 0) {
      openedAt = now;
    }
    if (endOfSnapshot || (openedAt >= 0 && now - openedAt >= maxOpenNanos)) {
      commit(records);
    }
  }

  /** Kafka acknowledged (or a transformation dropped) one returned record. */
  void acknowledged() {
    if (inFlight.decrementAndGet() == RESUME_BELOW && waiting) {
      synchronized (room) {
        room.notifyAll();
      }
    }
  }

  /** Records not yet acknowledged, below which a task held back by {@link #awaitRoom} goes on. */
  static final long RESUME_BELOW = MAX_IN_FLIGHT / 2;

  /**
   * Without a transaction: once {@link #MAX_IN_FLIGHT} returned records are not acknowledged, waits
   * until no more than {@link #RESUME_BELOW} are, the task stops ({@link #release}), or {@code
   * maxWaitMillis} have passed (then the task goes on regardless: a record Connect never reports
   * back must not stop the task). With a transaction, {@link #mustWait} bounds the backlog instead.
   *
   * @return true when the task waited
   */
  boolean awaitRoom(long maxWaitMillis) throws InterruptedException {
    if (context != null || released || inFlight.get() < MAX_IN_FLIGHT) {
      return false;
    }
    long deadline = nanoClock.getAsLong() + maxWaitMillis * 1_000_000L;
    synchronized (room) {
      waiting = true;
      try {
        long left;
        while (!released
            && inFlight.get() > RESUME_BELOW
            && (left = deadline - nanoClock.getAsLong()) > 0) {
          room.wait(Math.max(1, left / 1_000_000L));
        }
      } finally {
        waiting = false;
      }
    }
    return true;
  }

  /** Whether the task waits in {@link #awaitRoom} now. */
  boolean holdingBack() {
    return waiting;
  }

  /** The task stops: a wait in {@link #awaitRoom} ends now, and no later one starts. */
  void release() {
    released = true;
    synchronized (room) {
      room.notifyAll();
    }
  }

  /**
   * True when poll must return nothing for now: more than {@link #MAX_IN_FLIGHT} returned records
   * are not acknowledged, so the open transaction is ended with what it holds (Connect commits it
   * after the empty poll) instead of collecting more than the producer can flush before its
   * timeout. Without an open transaction nothing waits.
   */
  boolean mustWait() {
    if (context == null || inFlight.get() < MAX_IN_FLIGHT) {
      return false;
    }
    return endEarly();
  }

  /**
   * Ends the open transaction with what it holds (a table stops being published mid-snapshot);
   * returns true when the caller must return no further records from this poll, so the commit
   * Connect applies after the next batch covers only them.
   */
  boolean endEarly() {
    if (context == null || openedAt < 0) {
      return false;
    }
    context.commitTransaction();
    openedAt = -1;
    return true;
  }

  private void commit(List<SourceRecord> records) {
    if (!records.isEmpty()) {
      context.commitTransaction(records.get(records.size() - 1));
    } else if (openedAt >= 0) {
      // the batch had nothing for us: close what earlier batches of the snapshot opened
      context.commitTransaction();
    }
    openedAt = -1;
  }
}
