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

  /**
   * CPU time of the live threads whose name starts with {@code prefix}: Connect names a task's
   * thread {@code task-thread-<connector>-<task>}; it polls, converts and calls put().
   */
  static long threadCpuNanos(String prefix) {
    long total = 0;
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith(prefix)) {
        long cpu = THREADS.getThreadCpuTime(info.getThreadId());
        if (cpu > 0) {
          total += cpu;
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
