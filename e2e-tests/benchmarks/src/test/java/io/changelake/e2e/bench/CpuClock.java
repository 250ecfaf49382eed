package io.changelake.e2e.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/** CPU time consumed by this JVM, and by the worker threads of one connector's tasks. */
final class CpuClock {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private CpuClock() {}

  static long processCpuNanos() {
    return OS.getProcessCpuTime();
  }

  static long currentThreadCpuNanos() {
    return THREADS.getCurrentThreadCpuTime();
  }

  /** CPU time of every live thread, by thread id: the baseline for {@link #threadCpuNanos}. */
  static java.util.Map<Long, Long> threadCpuBaseline() {
    java.util.Map<Long, Long> baseline = new java.util.HashMap<>();
    for (long id : THREADS.getAllThreadIds()) {
      long cpu = THREADS.getThreadCpuTime(id);
      if (cpu > 0) {
        baseline.put(id, cpu);
      }
    }
    return baseline;
  }

  /**
   * CPU time used since the baseline by the live threads whose name starts with {@code prefix}:
   * Connect names a task's thread {@code task-thread-<connector>-<task>} (it polls, converts and
   * calls put()). The worker takes task threads from a pool and renames them, so a thread may have
   * worked for an earlier connector: only the time since the baseline counts.
   */
  static long threadCpuNanos(String prefix, java.util.Map<Long, Long> baseline) {
    long total = 0;
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith(prefix)) {
        long cpu = THREADS.getThreadCpuTime(info.getThreadId());
        if (cpu > 0) {
          total += cpu - baseline.getOrDefault(info.getThreadId(), 0L);
        }
      }
    }
    return total;
  }

  static boolean anyThread(String prefix) {
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
