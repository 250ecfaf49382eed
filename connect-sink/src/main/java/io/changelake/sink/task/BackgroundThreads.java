package io.changelake.sink.task;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;

/**
 * The sink's background threads, the committers that flush and commit a round and the compactor,
 * run at the lowest Java priority, below the task threads that read: when the worker's cores are
 * all busy, Linux then gives the reading most of them and a round lands a little later (at 100
 * tables in one task on 2 cores, reads during rounds went from about 0.76 to 0.83 of the rate
 * between them, docs/benchmarks.md). RocksDB runs its compactions below its writers for the same
 * reason.
 *
 * <p>HotSpot hands Java priorities to Linux only when the worker's JVM runs with {@value
 * #PRIORITY_OPTION}: {@code MIN_PRIORITY} is then nice 4, which Linux's fair scheduler weighs at
 * about two fifths of a thread at nice 0 when both want a core; lowering a thread's priority needs
 * no privilege. Without the option the priority changes nothing, and the first task of the worker
 * says so once.
 */
final class BackgroundThreads {
  static final String PRIORITY_OPTION = "-XX:ThreadPriorityPolicy=1";

  private static final AtomicBoolean REPORTED = new AtomicBoolean();

  private BackgroundThreads() {}

  /** Daemon threads named {@code prefix} (and a number from 0 after it when {@code numbered}). */
  static ThreadFactory factory(String prefix, boolean numbered) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, numbered ? prefix + n.getAndIncrement() : prefix);
      t.setDaemon(true);
      t.setPriority(Thread.MIN_PRIORITY);
      return t;
    };
  }

  /**
   * Why this JVM keeps the background threads at the task threads' OS priority, if it does; empty
   * where priorities reach the OS or the JVM does not say (not HotSpot, not Linux).
   */
  static Optional<String> prioritiesIgnored() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return Optional.empty();
    }
    try {
      HotSpotDiagnosticMXBean vm =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      if (vm == null) {
        return Optional.empty();
      }
      if (!"true".equals(vm.getVMOption("UseThreadPriorities").getValue())) {
        return Optional.of("this worker's JVM runs with -XX:-UseThreadPriorities");
      }
      if (!"1".equals(vm.getVMOption("ThreadPriorityPolicy").getValue())) {
        return Optional.of("this worker's JVM runs without " + PRIORITY_OPTION);
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      // another JVM, or an option it does not have
      return Optional.empty();
    }
  }

  /** Says once per worker JVM, at INFO, when the background threads' priority changes nothing. */
  static void reportOnce(Logger log) {
    if (!REPORTED.compareAndSet(false, true)) {
      return;
    }
    prioritiesIgnored()
        .ifPresent(
            why ->
                log.info(
                    "Changelake's committer and compactor threads run at the OS priority of the"
                        + " task threads: {}, so Linux ignores Java thread priorities. Add {} to"
                        + " the worker's JVM options (KAFKA_OPTS) and tasks read on at nearly their"
                        + " full rate while commit rounds land on busy cores (connect-sink README,"
                        + " \"Committer and compactor threads run below the task threads\")",
                    why,
                    PRIORITY_OPTION));
  }
}
