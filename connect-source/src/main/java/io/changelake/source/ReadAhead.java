package io.changelake.source;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.UnreadableSnapshotException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the task's tables on a thread of its own, ahead of the task thread: Paimon's changelog read
 * and the building of records overlap with what Connect does with the previous batch on the task
 * thread (converting, sending), which otherwise waited for them.
 *
 * <p>The thread goes round the tables as the task did before: a snapshot cut into several batches
 * is read to its end before another table is read, so with {@code transaction.boundary=connector}
 * the task still sees each snapshot's batches one after the other. What it finds is handed to the
 * task thread in that order through a queue of at most {@code capacity} items, so memory stays
 * bounded by a few batches. Nothing read ahead counts as published until the task thread
 * {@linkplain TablePublisher#handOver hands it over}: positions are kept per record, so after a
 * failure everything still queued is dropped and the readers resume just after the last batch
 * handed over — exactly-once and at-least-once hold as if nothing had been read ahead.
 *
 * <p>The first failure the thread meets ends it, after the batches it read before (queued in
 * order); a table whose snapshot cannot be read ({@link Unreadable}) only takes that table out of
 * the rounds. After a round that found nothing new it waits {@code idleWait}.
 */
final class ReadAhead {
  private static final Logger LOG = LoggerFactory.getLogger(ReadAhead.class);

  /** How long {@link #stop} waits for a read in progress to finish. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  /** What the read-ahead thread found, in the order it found it. */
  sealed interface Item {}

  /** The next batch of {@code publisher}'s table, turned into records. */
  record Batch(TablePublisher publisher, ReadyBatch ready) implements Item {}

  /** {@code publisher}'s table cannot be read any more; the others go on. */
  record Unreadable(TablePublisher publisher, UnreadableSnapshotException error) implements Item {}

  /** Reading failed; the thread has ended. */
  record Failed(RuntimeException error) implements Item {}

  /** A round over every table found nothing new. */
  record Idle() implements Item {}

  private final List<TablePublisher> publishers;
  private final int capacity;
  private final long idleWaitNanos;
  private final Thread thread;

  // guarded by this
  private final ArrayDeque<Item> queue = new ArrayDeque<>();
  private boolean running = true;

  // read-ahead thread only
  private int nextPublisher;
  private TablePublisher unfinished;

  /**
   * @param publishers the task's tables, read in turn
   * @param unfinished the publisher whose snapshot the task handed over only in part (a read-ahead
   *     started again after a failure goes on with it first, as the task would have), or null
   * @param capacity most items waiting for the task thread
   * @param idleWait how long to wait after a round that found nothing new
   * @param threadName the reading thread's name
   */
  ReadAhead(
      List<TablePublisher> publishers,
      TablePublisher unfinished,
      int capacity,
      Duration idleWait,
      String threadName) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.publishers = List.copyOf(publishers);
    this.unfinished = unfinished;
    this.capacity = capacity;
    this.idleWaitNanos = idleWait.toNanos();
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * The next item, waiting at most {@code timeoutMillis} for one; null when none came in time or
   * the read-ahead was stopped.
   */
  synchronized Item next(long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (queue.isEmpty() && running) {
      long leftMillis = (deadline - System.nanoTime()) / 1_000_000L;
      if (leftMillis <= 0) {
        return null;
      }
      wait(leftMillis);
    }
    if (!running) {
      return null;
    }
    Item item = queue.pollFirst();
    notifyAll(); // room for the read-ahead thread
    return item;
  }

  /**
   * Stops the thread and drops what it read ahead; returns once it ended (a read in progress
   * finishes first), so the caller may use the readers again.
   */
  void stop() {
    synchronized (this) {
      running = false;
      queue.clear();
      notifyAll();
    }
    if (Thread.currentThread() == thread || !thread.isAlive()) {
      return;
    }
    try {
      thread.join(STOP_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn(
          "The read-ahead thread {} is still inside a read after {} ms; going on without it",
          thread.getName(),
          STOP_WAIT.toMillis());
    }
  }

  /** How many items wait for the task thread (tests). */
  synchronized int queued() {
    return queue.size();
  }

  private synchronized boolean running() {
    return running;
  }

  private void run() {
    try {
      while (running()) {
        for (TablePublisher publisher : publishers) {
          publisher.applyCheckpoint();
        }
        Item found = readOne();
        put(found != null ? found : new Idle());
        if (found == null) {
          idle();
        }
      }
    } catch (InterruptedException e) {
      // stopped
    } catch (RuntimeException e) {
      putLast(new Failed(e));
    } catch (Error e) {
      putLast(new Failed(new ConnectException("Reading the tables' changelogs failed: " + e, e)));
      throw e;
    }
  }

  /** The next batch of the round, or null when no table has anything new. */
  private Item readOne() {
    for (int tried = 0; tried < publishers.size(); tried++) {
      TablePublisher publisher = unfinished != null ? unfinished : nextInTurn();
      if (publisher.failure().isPresent()) {
        unfinished = null;
        continue;
      }
      Optional<ChangeBatch> batch;
      try {
        batch = publisher.poll();
      } catch (UnreadableSnapshotException e) {
        unfinished = null;
        return new Unreadable(publisher, e);
      }
      if (batch.isEmpty()) {
        unfinished = null;
        continue;
      }
      // the same snapshot goes on before another table's turn
      unfinished = batch.get().endOfSnapshot() ? null : publisher;
      return new Batch(publisher, publisher.build(batch.get()));
    }
    return null;
  }

  private TablePublisher nextInTurn() {
    TablePublisher publisher = publishers.get(nextPublisher);
    nextPublisher = (nextPublisher + 1) % publishers.size();
    return publisher;
  }

  private synchronized void put(Item item) throws InterruptedException {
    while (running && queue.size() >= capacity) {
      wait();
    }
    if (running) {
      queue.addLast(item);
      notifyAll();
    }
  }

  /** Queues the failure that ends the thread, past the capacity: it must not wait for room. */
  private synchronized void putLast(Item item) {
    if (running) {
      queue.addLast(item);
      notifyAll();
    }
  }

  private synchronized void idle() throws InterruptedException {
    long deadline = System.nanoTime() + idleWaitNanos;
    while (running) {
      long leftMillis = (deadline - System.nanoTime()) / 1_000_000L;
      if (leftMillis <= 0) {
        return;
      }
      wait(leftMillis);
    }
  }
}
