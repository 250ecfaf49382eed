package io.changelake.sink.task;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.write.SealedCommit;
import io.changelake.sink.metrics.SinkMetrics;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;
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

  /** A round whose every table landed: its positions are now in every table it wrote. */
  record Landed(Map<TopicPartition, Long> positions, SourceOrder.Reached reached, int tables) {}

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final SinkMetrics metrics;
  private final ThreadPoolExecutor committers;
  private final int maxThreads;
  // the committer threads the next round may use, from the last round's CPU (see parallelism)
  private volatile int nextThreads;
  private InFlight inFlight;
  // tests hold the committer here to see the task go on while a round is in flight
  private volatile CountDownLatch gate;

  private record InFlight(
      Map<TopicPartition, Long> positions,
      SourceOrder.Reached reached,
      int tables,
      CompletableFuture<Void> done) {}

  /**
   * @param threads the most committer threads (commit.threads): on an object store table commits
   *     are mostly waiting (manifests, the snapshot, the offset copy), so a few in parallel take a
   *     round of many tables from their sum towards their maximum; on a local or fast file system
   *     they are CPU (the Parquet flush, the manifests), and more threads than the cores the task
   *     thread leaves only take its core: each round then uses as many as {@link #parallelism}
   *     says. Threads start only as rounds need them and end when idle
   */
  CommitRound(String connector, int taskId, int threads, SinkMetrics metrics) {
    this.metrics = metrics;
    this.maxThreads = threads;
    this.nextThreads = threads;
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory =
        r -> {
          Thread t =
              new Thread(
                  r,
                  "changelake-committer-" + connector + "-" + taskId + "-" + n.getAndIncrement());
          t.setDaemon(true);
          return t;
        };
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
    int threads = nextThreads;
    if (threads != committers.getCorePoolSize()) {
      // core first when shrinking, maximum first when growing: core may never exceed maximum
      if (threads < committers.getCorePoolSize()) {
        committers.setCorePoolSize(threads);
        committers.setMaximumPoolSize(threads);
      } else {
        committers.setMaximumPoolSize(threads);
        committers.setCorePoolSize(threads);
      }
    }
    List<CompletableFuture<Void>> landings = new ArrayList<>();
    LongAccumulator slowestMs = new LongAccumulator(Math::max, 0);
    LongAccumulator cpuNanos = new LongAccumulator(Long::sum, 0);
    long processCpuAtStart = processCpuNanos();
    // the machine's load is measured from one call to the next: this call starts the round's
    machineLoad();
    RuntimeException sealFailure = null;
    for (TableState table : dirty) {
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
              () -> {
                long cpu = threadCpuNanos();
                slowestMs.accumulate(land(table, sealed));
                cpuNanos.accumulate(threadCpuNanos() - cpu);
              },
              committers));
    }
    long sealedMs = (System.nanoTime() - start) / 1_000_000;
    int tables = landings.size();
    CompletableFuture<Void> done =
        CompletableFuture.allOf(landings.toArray(CompletableFuture[]::new))
            .whenComplete(
                (ok, error) -> {
                  long roundNanos = System.nanoTime() - start;
                  long roundMs = roundNanos / 1_000_000;
                  metrics.commitRound(roundMs);
                  nextThreads =
                      parallelism(
                          new RoundCpu(
                              cpuNanos.get(),
                              processCpuNanos() - processCpuAtStart,
                              machineLoad(),
                              roundNanos,
                              Math.min(tables, threads)),
                          threads,
                          maxThreads,
                          Runtime.getRuntime().availableProcessors());
                  // where a round's time goes: the seal on the task thread, the landings
                  // (flush and commit) on the committer threads, the slowest table's share
                  if (tables > 0 && LOG.isDebugEnabled()) {
                    LOG.debug(
                        "Commit round of {} tables {} after {} ms: sealed in {} ms on the task"
                            + " thread, flushed and committed on up to {} committer threads,"
                            + " slowest table {} ms",
                        tables,
                        error == null ? "landed" : "failed",
                        roundMs,
                        sealedMs,
                        Math.min(tables, threads),
                        slowestMs.get());
                  }
                });
    inFlight = new InFlight(positions, reached, dirty.size(), done);
    if (sealFailure != null) {
      throw sealFailure;
    }
  }

  /**
   * What a round's landings cost: the committer threads' CPU time, the whole JVM's over the round,
   * how busy the machine's cores were meanwhile (0 to 1, whoever kept them busy; negative when
   * unknown), the round's wall time, and how many committer threads it used.
   */
  record RoundCpu(
      long committerNanos, long processNanos, double machineLoad, long roundNanos, int threads) {}

  /**
   * The committer threads for the next round, after a round that used {@code current} of them and
   * cost {@code cpu}: one fewer (down to one, and at most {@code cores - 1}) when the machine's
   * cores were busy over the round (this JVM or other processes: the scheduler shares a core among
   * the threads that want it, so each more committer thread takes from the task thread), since more
   * threads then only split the cores the task thread reads with (on 2 cores four CPU-bound
   * landings and the task thread got two fifths of a core each, and the task read at 0.46 of its
   * rate between rounds: docs/benchmarks.md, issue 14); one more (up to {@code max}) when the cores
   * were not busy and each committer thread spent most of the round waiting (an object store, a
   * catalog). A thread's own CPU share alone cannot tell: a thread waiting for a core looks like
   * one waiting for the object store.
   */
  static int parallelism(RoundCpu cpu, int current, int max, int cores) {
    if (cpu.roundNanos() <= 0 || cpu.threads() <= 0 || cpu.processNanos() <= 0) {
      return current;
    }
    double machineBusy =
        Math.max(cpu.machineLoad(), (double) cpu.processNanos() / cpu.roundNanos() / cores);
    if (machineBusy >= 0.85) {
      return Math.max(1, Math.min(current - 1, cores - 1));
    }
    double perThread = (double) cpu.committerNanos() / cpu.roundNanos() / cpu.threads();
    return perThread < 0.5 ? Math.min(max, current + 1) : current;
  }

  /**
   * How busy the machine's cores were since the previous call (0 to 1), negative where the platform
   * does not say.
   */
  private static double machineLoad() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getCpuLoad()
        : -1;
  }

  /** CPU time of the whole JVM so far, 0 where the platform does not say. */
  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? Math.max(0, os.getProcessCpuTime())
        : 0;
  }

  private static long threadCpuNanos() {
    return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : 0;
  }

  /** Lands {@code sealed}; returns how long its flush and commit took, in ms. */
  private long land(TableState table, SealedCommit sealed) {
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
      result = sealed.land();
    } catch (RuntimeException e) {
      throw new TableCommitException(table, e);
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    table.metrics.committed(ms, result);
    LOG.debug("Committed {}: {}", table.id, result);
    return ms;
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
