package io.changelake.e2e.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Samples, every 100 ms while a sink runs, how many records each task's consumer has handed to the
 * task (Kafka's {@code records-consumed-total}) and how many commit rounds the task has started and
 * ended (the Changelake sink's {@code commit-rounds-started-total} and {@code
 * commit-rounds-total}). From these: when the last record was read, and the read rate during commit
 * rounds next to the rate between them, and the cores the JVM kept busy in each. The worker runs in
 * this JVM, so both are in the platform MBean server.
 */
final class ConsumptionSampler implements AutoCloseable {

  /**
   * Fewest sampled intervals of a kind (during rounds, between them) a run's read rate during
   * rounds over the rate between them rests on: below it one or two rounds decide the figure
   * (session 15: the 2-task case at 10 s had 2–4 intervals in rounds per run and read 0.51–0.95).
   */
  static final int MIN_INTERVALS = 10;

  /**
   * What a run's samples say; rates are per task, NaN when a kind of interval never occurred. The
   * interval counts are 100 ms intervals summed over the tasks (2 tasks reading 1 s: 20).
   */
  record Reading(
      double secondsToReadAll,
      double eventsPerSecondDuringCommits,
      double eventsPerSecondBetweenCommits,
      double secondsInCommits,
      double secondsBetweenCommits,
      int intervalsDuringCommits,
      int intervalsBetweenCommits,
      double cpuSecondsToReadAll,
      Map<String, Double> threadCpuSecondsToReadAll,
      double coresDuringCommits,
      double coresBetweenCommits) {
    /** The read rate during rounds over the rate between, NaN when a side has too few samples. */
    double duringOverBetween() {
      return intervalsDuringCommits < MIN_INTERVALS || intervalsBetweenCommits < MIN_INTERVALS
          ? Double.NaN
          : eventsPerSecondDuringCommits / eventsPerSecondBetweenCommits;
    }

    /** Cores the whole JVM kept busy while the tasks read (broker and worker included). */
    double coresWhileReading() {
      return cpuSecondsToReadAll / secondsToReadAll;
    }
  }

  private record Sample(
      long nanos, long[] consumed, long[] roundsStarted, long[] roundsEnded, long cpuNanos) {}

  private static final long PERIOD_MS = 100;

  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private final String connector;
  private final int tasks;
  private final long events;
  private final long startNanos;
  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private final Map<Long, Long> threadBaseline = CpuClock.threadCpuBaseline();
  private final Map<String, Long> vmThreadBaseline = CpuClock.vmThreadCpuNanos();
  private final long cpuBaseline = CpuClock.processCpuNanos();
  // CPU by thread group when every record had been read: where the cores went while reading
  private volatile Map<String, Long> threadCpuAtReadAll;
  private volatile boolean running = true;

  /** Starts sampling; {@code startNanos} is when the connector was submitted. */
  ConsumptionSampler(String connector, int tasks, long events, long startNanos) {
    this.connector = connector;
    this.tasks = tasks;
    this.events = events;
    this.startNanos = startNanos;
    thread = new Thread(this::sampleLoop, "bench-consumption-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  private void sampleLoop() {
    while (running) {
      long[] consumed = new long[tasks];
      long[] started = new long[tasks];
      long[] ended = new long[tasks];
      for (int t = 0; t < tasks; t++) {
        consumed[t] =
            longAttribute(
                "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=connector-consumer-"
                    + connector
                    + "-"
                    + t,
                "records-consumed-total");
        String task = "kafka.connect:type=plugins,connector=" + connector + ",task=" + t;
        // ended first: a round ending between the two reads then counts as still in flight
        ended[t] = longAttribute(task, "commit-rounds-total");
        started[t] = longAttribute(task, "commit-rounds-started-total");
      }
      long cpu = CpuClock.processCpuNanos() - cpuBaseline;
      if (threadCpuAtReadAll == null && Arrays.stream(consumed).sum() >= events) {
        threadCpuAtReadAll = threadGroupCpuNanos();
      }
      synchronized (samples) {
        samples.add(new Sample(System.nanoTime(), consumed, started, ended, cpu));
      }
      SinkRunner.sleep(PERIOD_MS);
    }
  }

  /**
   * CPU since the start by thread group: this connector's task and committer threads, the other
   * Java threads by name with digits as {@code #}, GC and JIT threads from {@code /proc}.
   */
  private Map<String, Long> threadGroupCpuNanos() {
    Map<String, Long> groups = new TreeMap<>();
    CpuClock.otherThreadCpuNanos(List.of(), threadBaseline)
        .forEach(
            (name, nanos) ->
                groups.merge(
                    name.replace(connector.replaceAll("[0-9]+", "#"), "<connector>"),
                    nanos,
                    Long::sum));
    CpuClock.vmThreadCpuNanos()
        .forEach(
            (kind, nanos) ->
                groups.merge(
                    kind + " (VM threads)",
                    nanos - vmThreadBaseline.getOrDefault(kind, 0L),
                    Long::sum));
    return groups;
  }

  private long longAttribute(String objectName, String attribute) {
    try {
      Object value = server.getAttribute(new ObjectName(objectName), attribute);
      return value instanceof Number n ? n.longValue() : 0;
    } catch (Exception e) {
      return 0; // not registered yet, or a sink without the metric
    }
  }

  /**
   * The figures of the samples so far. An interval of a task counts as "during a commit round" when
   * a round of the task was in flight at any moment of it (from its seal to the landing of its last
   * table, on whichever thread): one was in flight at its start or one started in it, that is the
   * rounds started by its end exceed the rounds ended by its start. Otherwise it is "between
   * rounds". Only intervals after the task's first record and before every record was read count.
   */
  Reading reading() {
    List<Sample> copy;
    synchronized (samples) {
      copy = List.copyOf(samples);
    }
    long readAllNanos = -1;
    long readAllCpuNanos = -1;
    for (Sample s : copy) {
      long total = 0;
      for (long c : s.consumed()) {
        total += c;
      }
      if (total >= events) {
        readAllNanos = s.nanos();
        readAllCpuNanos = s.cpuNanos();
        break;
      }
    }
    Map<String, Double> threadSeconds = new TreeMap<>();
    Map<String, Long> groups = threadCpuAtReadAll;
    if (groups != null) {
      groups.forEach((group, nanos) -> threadSeconds.put(group, nanos / 1e9));
    }
    double duringRecords = 0;
    double duringSeconds = 0;
    double betweenRecords = 0;
    double betweenSeconds = 0;
    int duringIntervals = 0;
    int betweenIntervals = 0;
    // the JVM's CPU in the same intervals, each counted once: during when any task had a round
    double duringCpu = 0;
    double duringCpuSeconds = 0;
    double betweenCpu = 0;
    double betweenCpuSeconds = 0;
    for (int i = 1; i < copy.size(); i++) {
      Sample a = copy.get(i - 1);
      Sample b = copy.get(i);
      if (readAllNanos >= 0 && b.nanos() > readAllNanos) {
        break;
      }
      double seconds = (b.nanos() - a.nanos()) / 1e9;
      boolean anyReading = false;
      boolean anyInRound = false;
      for (int t = 0; t < tasks; t++) {
        if (a.consumed()[t] == 0) {
          continue; // the task has not started reading
        }
        anyReading = true;
        long records = b.consumed()[t] - a.consumed()[t];
        if (b.roundsStarted()[t] > a.roundsEnded()[t]) {
          anyInRound = true;
          duringRecords += records;
          duringSeconds += seconds;
          duringIntervals++;
        } else {
          betweenRecords += records;
          betweenSeconds += seconds;
          betweenIntervals++;
        }
      }
      if (!anyReading) {
        continue;
      }
      double cpu = (b.cpuNanos() - a.cpuNanos()) / 1e9;
      if (anyInRound) {
        duringCpu += cpu;
        duringCpuSeconds += seconds;
      } else {
        betweenCpu += cpu;
        betweenCpuSeconds += seconds;
      }
    }
    return new Reading(
        readAllNanos < 0 ? Double.NaN : (readAllNanos - startNanos) / 1e9,
        duringSeconds == 0 ? Double.NaN : duringRecords / duringSeconds,
        betweenSeconds == 0 ? Double.NaN : betweenRecords / betweenSeconds,
        duringSeconds,
        betweenSeconds,
        duringIntervals,
        betweenIntervals,
        readAllCpuNanos < 0 ? Double.NaN : readAllCpuNanos / 1e9,
        threadSeconds,
        duringCpuSeconds == 0 ? Double.NaN : duringCpu / duringCpuSeconds,
        betweenCpuSeconds == 0 ? Double.NaN : betweenCpu / betweenCpuSeconds);
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
