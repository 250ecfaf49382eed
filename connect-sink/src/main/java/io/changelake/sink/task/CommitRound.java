package io.changelake.sink.task;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.write.SealedCommit;
import io.changelake.sink.metrics.SinkMetrics;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit rounds of one task, off the task thread. A round seals, on the task thread, every
 * table with rows (a table with a {@code sequence.field} hands its buffered rows, one writer
 * generation, to the round and writes on into its other generation; any other table flushes them
 * into files there and goes on taking rows), then flushes and commits its tables in parallel on a
 * few committer threads while the task keeps consuming. Only when every table of the round has
 * landed are the round's positions committed (applied by the task thread, which alone touches the
 * offsets): a crash at any point replays from what the tables hold.
 *
 * <p>At most one round is in flight: the next one starts only once it has landed ({@link #start}
 * refuses otherwise; the task starts a round due meanwhile in its first {@code put} after the
 * landing, reading on until then), which bounds what is sealed but not committed to one writer
 * generation per table, sharing the task's write buffer with the generation taking rows.
 *
 * <p>Not thread-safe: the task thread calls every method; the committer threads only land.
 */
final class CommitRound implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CommitRound.class);

  // idle committer threads end after this: a task whose rounds take one table keeps one thread
  private static final long IDLE_THREAD_SECONDS = 30;

  /**
   * How many flushes that need only the CPU (sort and Parquet onto a local disk) run at once in the
   * worker, whichever task's: one core fewer than the JVM has, so the task threads keep a core to
   * read on (four committer threads flushing a round of 100 tables at once left the task thread
   * about two fifths of a core on 2 cores). The commits after the flushes, and flushes to an object
   * store (which wait for their uploads), stay on up to commit.threads threads per task. {@code
   * -Dchangelake.sink.cpu-flushes=N} in the worker's JVM options sets another number (at least 1),
   * e.g. for a worker whose cores are not all its own to share.
   */
  static final int CPU_FLUSHES =
      Math.max(
          1,
          Integer.getInteger(
              "changelake.sink.cpu-flushes", Runtime.getRuntime().availableProcessors() - 1));

  // one per worker: the plugin's classes, this one too, are loaded once per worker
  private static final Semaphore CPU_FLUSH_PERMITS = new Semaphore(CPU_FLUSHES, true);

  /** A round whose every table landed: its positions are now in every table it wrote. */
  record Landed(Map<TopicPartition, Long> positions, SourceOrder.Reached reached, int tables) {}

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final boolean THREAD_CPU_TIME = THREADS.isCurrentThreadCpuTimeSupported();

  private final SinkMetrics metrics;
  private final FlushPacing pacing;
  private final ThreadPoolExecutor committers;
  private InFlight inFlight;
  // tests hold the committer here to see the task go on while a round is in flight
  private volatile CountDownLatch gate;

  private record InFlight(
      Map<TopicPartition, Long> positions,
      SourceOrder.Reached reached,
      int tables,
      CompletableFuture<Void> done) {}

  /**
   * @param threads the most committer threads (commit.threads): table commits are object-store and
   *     catalog I/O (manifests, the conflict check, the snapshot, the offset copy), mostly waiting,
   *     so a few in parallel take a round of many tables from their sum towards their maximum;
   *     threads start only as rounds need them and end when idle
   */
  CommitRound(String connector, int taskId, int threads, FlushPacing pacing, SinkMetrics metrics) {
    this.metrics = metrics;
    this.pacing = pacing;
    // below the task threads, so that the reading keeps the cores a round would take from it
    BackgroundThreads.reportOnce(LOG);
    ThreadFactory factory =
        BackgroundThreads.factory("changelake-committer-" + connector + "-" + taskId + "-", true);
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            IDLE_THREAD_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            factory);
    pool.allowCoreThreadTimeOut(true);
    this.committers = pool;
  }

  boolean inFlight() {
    return inFlight != null;
  }

  /**
   * Seals every table of {@code dirty} with {@code progress} of it and starts committing them. The
   * caller has collected the round before ({@link #await}); this one only starts when none is in
   * flight.
   *
   * @param positions the processed positions every table's commit records
   */
  void start(
      Map<TopicPartition, Long> positions,
      SourceOrder.Reached reached,
      List<TableState> dirty,
      Function<TableState, SourceProgress> progress) {
    if (inFlight != null) {
      throw new IllegalStateException("a commit round is still in flight; await it first");
    }
    long start = System.nanoTime();
    metrics.commitRoundStarted();
    List<CompletableFuture<Void>> landings = new ArrayList<>();
    LongAccumulator slowestMs = new LongAccumulator(Math::max, 0);
    LongAdder restedNanos = new LongAdder();
    RuntimeException sealFailure = null;
    // the committer threads and the flush permits take landings in turn, so a round of more tables
    // than threads lands its first tables first: those holding the oldest rows, which have waited
    // longest already. In a fixed order, a table whose row came just after the last round's seal
    // was as likely to land last, and its row waited an interval plus a whole round (issue 14,
    // 100 tables every second)
    for (TableState table : oldestRowsFirst(dirty)) {
      SealedCommit sealed;
      try {
        sealed = table.writer().seal(progress.apply(table));
      } catch (RuntimeException e) {
        // the tables sealed already must still land, or their writers wait for them forever
        sealFailure = e;
        break;
      }
      table.dirty = false;
      // the round's rows, not those written while it lands, are what its landing commits
      table.metrics.sealed();
      landings.add(
          CompletableFuture.runAsync(
              () -> slowestMs.accumulate(land(table, sealed, start, restedNanos)), committers));
    }
    long sealedMs = (System.nanoTime() - start) / 1_000_000;
    int tables = landings.size();
    CompletableFuture<Void> done =
        CompletableFuture.allOf(landings.toArray(CompletableFuture[]::new))
            .whenComplete(
                (ok, error) -> {
                  long roundMs = (System.nanoTime() - start) / 1_000_000;
                  metrics.commitRound(roundMs);
                  // where a round's time goes: the seal on the task thread, the landings
                  // (flush and commit) on the committer threads, the slowest table's share
                  if (tables > 0 && LOG.isDebugEnabled()) {
                    LOG.debug(
                        "Commit round of {} tables {} after {} ms: sealed in {} ms on the task"
                            + " thread, flushed and committed on up to {} committer threads"
                            + " (resting {} ms after flushes), slowest table {} ms",
                        tables,
                        error == null ? "landed" : "failed",
                        roundMs,
                        sealedMs,
                        Math.min(tables, committers.getMaximumPoolSize()),
                        restedNanos.sum() / 1_000_000,
                        slowestMs.get());
                  }
                });
    inFlight = new InFlight(positions, reached, dirty.size(), done);
    if (sealFailure != null) {
      throw sealFailure;
    }
  }

  private static List<TableState> oldestRowsFirst(List<TableState> tables) {
    List<TableState> sorted = new ArrayList<>(tables);
    sorted.sort(Comparator.comparingLong(TableState::oldestRowMillis));
    return sorted;
  }

  /**
   * Lands {@code sealed} in the round started at {@code roundStart}; returns how long its flush and
   * commit took, in ms.
   */
  private long land(TableState table, SealedCommit sealed, long roundStart, LongAdder rested) {
    CountDownLatch held = gate;
    if (held != null) {
      try {
        held.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    long start = System.nanoTime();
    CommitResult result;
    try {
      if (sealed.flushNeedsOnlyCpu()) {
        CPU_FLUSH_PERMITS.acquireUninterruptibly();
        try {
          long cpu = threadCpuNanos();
          sealed.flush();
          // still holding the permit: the rest is what leaves the task thread its cores
          rest(pacing.restNanos(threadCpuNanos() - cpu, roundStart, System.nanoTime()), rested);
        } finally {
          CPU_FLUSH_PERMITS.release();
        }
      }
      result = sealed.land();
    } catch (RuntimeException e) {
      throw new TableCommitException(table, e);
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    table.metrics.committed(ms, result);
    LOG.debug("Committed {}: {}", table.id, result);
    return ms;
  }

  /** This thread's CPU time, or 0 where the JVM measures none (a flush then never rests). */
  private static long threadCpuNanos() {
    return THREAD_CPU_TIME ? Math.max(0, THREADS.getCurrentThreadCpuTime()) : 0;
  }

  private static void rest(long nanos, LongAdder rested) {
    if (nanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
      rested.add(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The round in flight if it has finished; its failure, naming the table, is thrown. */
  Optional<Landed> poll() {
    if (inFlight == null || !inFlight.done().isDone()) {
      return Optional.empty();
    }
    return Optional.of(await());
  }

  /**
   * Waits for the round in flight and returns it (empty when none was); throws its failure, naming
   * the table whose commit failed. Either way no round is in flight afterwards.
   */
  Optional<Landed> awaitIfAny() {
    return inFlight == null ? Optional.empty() : Optional.of(await());
  }

  private Landed await() {
    InFlight round = inFlight;
    inFlight = null;
    try {
      round.done().join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof TableCommitException table) {
        throw table;
      }
      throw cause instanceof RuntimeException runtime ? runtime : e;
    }
    return new Landed(round.positions(), round.reached(), round.tables());
  }

  /** Waits for the round in flight, if any, and forgets it whatever its outcome. */
  void discard() {
    if (inFlight == null) {
      return;
    }
    try {
      await();
    } catch (RuntimeException e) {
      LOG.debug("The commit round in flight failed while it was discarded", e);
    }
  }

  /** Holds the committer threads until the returned latch is counted down, for tests. */
  CountDownLatch hold() {
    CountDownLatch latch = new CountDownLatch(1);
    gate = latch;
    return latch;
  }

  /** Waits for the round in flight, then stops the committer threads. */
  @Override
  public void close() {
    discard();
    committers.shutdown();
  }

  /** A table's commit in a round failed; the message names the table. */
  static final class TableCommitException extends RuntimeException {
    TableCommitException(TableState table, RuntimeException cause) {
      super(
          "Committing table "
              + table.id.getFullName()
              + " in a commit round failed on the committer thread: "
              + cause.getMessage(),
          cause);
    }
  }
}
