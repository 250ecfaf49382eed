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

  /**
   * CPU time since {@code baseline} of the live Java threads none of whose names starts with one of
   * {@code excluded}, by name with digits as {@code #} (the broker's request handlers, the worker's
   * offset committer, ...): where the JVM's time goes besides the threads a run looks at itself.
   */
  static java.util.Map<String, Long> otherThreadCpuNanos(
      java.util.Collection<String> excluded, java.util.Map<Long, Long> baseline) {
    java.util.Map<String, Long> byName = new java.util.HashMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info == null || excluded.stream().anyMatch(info.getThreadName()::startsWith)) {
        continue;
      }
      long cpu = THREADS.getThreadCpuTime(info.getThreadId());
      if (cpu > 0) {
        byName.merge(
            info.getThreadName().replaceAll("[0-9]+", "#"),
            cpu - baseline.getOrDefault(info.getThreadId(), 0L),
            Long::sum);
      }
    }
    return byName;
  }

  /**
   * CPU time of the JVM's threads Java does not list, by kind ({@code GC}: the VM thread, where the
   * serial collector runs, and GC worker threads; {@code JIT}: the compiler threads), read from
   * {@code /proc/self/task} (clock ticks, 10 ms); empty where there is no {@code /proc}.
   */
  static java.util.Map<String, Long> vmThreadCpuNanos() {
    java.util.Map<String, Long> byKind = new java.util.HashMap<>();
    java.nio.file.Path tasks = java.nio.file.Path.of("/proc/self/task");
    if (!java.nio.file.Files.isDirectory(tasks)) {
      return byKind;
    }
    try (var dirs = java.nio.file.Files.list(tasks)) {
      for (java.nio.file.Path task : (Iterable<java.nio.file.Path>) dirs::iterator) {
        try {
          String stat = java.nio.file.Files.readString(task.resolve("stat"));
          // "tid (comm) state ...": comm may hold spaces, so split after its closing parenthesis
          String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String kind =
              comm.equals("VM Thread") || comm.startsWith("GC Thread") || comm.startsWith("G1 ")
                  ? "GC"
                  : comm.contains("CompilerThre") ? "JIT" : null;
          if (kind != null) {
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // utime and stime are fields 14 and 15 of stat, 12 and 13 after comm and state
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            byKind.merge(kind, ticks * 10_000_000L, Long::sum);
          }
        } catch (java.io.IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    } catch (java.io.IOException e) {
      return byKind;
    }
    return byKind;
  }

  /** Collections so far, by collector ({@code Copy}: young, {@code MarkSweepCompact}: full). */
  static java.util.Map<String, Long> gcCounts() {
    java.util.Map<String, Long> counts = new java.util.HashMap<>();
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      counts.put(gc.getName(), gc.getCollectionCount());
    }
    return counts;
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
