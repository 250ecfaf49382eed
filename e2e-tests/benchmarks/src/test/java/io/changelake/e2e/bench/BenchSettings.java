package io.changelake.e2e.bench;

import java.nio.file.Path;

/**
 * Sizes of one benchmark run, from system properties ({@code -Dbench.events=...}) so a quick
 * development run and the measured run use the same code. The defaults are the measured run's,
 * sized to fit a 20-minute window on a 2-core machine; larger runs, e.g. {@code
 * -Dbench.events=500000 -Dbench.cost.sizes=100000,1000000,10000000}, take correspondingly longer.
 *
 * <p>Issue 14's figures in a few minutes each (docs/benchmarks-analysis.md states what the full
 * default run takes): {@code -Dbench.only=scaling -Dbench.scale.events=20000
 * -Dbench.scale.stall.events=40000 -Dbench.scale.repetitions=1} (tasks, tables, the short interval
 * at 100 tables, reads during rounds, the 1,000-table heap); {@code -Dbench.only=latency
 * -Dbench.latency.seconds=10} (p99 at 1 and at {@code bench.latency.tables}); {@code
 * -Dbench.only=converter -Dbench.converter.events=2000 -Dbench.repetitions=1}.
 */
record BenchSettings(
    int repetitions,
    int events,
    int manyTables,
    int keySpace,
    int converterEvents,
    int memoryTables,
    int memoryEventsPerTable,
    int latencySeconds,
    int latencyWarmupSeconds,
    int latencyRowsPerSecond,
    int[] latencyTableCounts,
    int sourceEvents,
    int costEvents,
    int[] costTableCounts,
    int[] costTableSizes,
    long commitIntervalMs,
    int scaleRepetitions,
    int scaleEvents,
    int[] scaleTableCounts,
    long scaleCommitIntervalMs,
    Path docsDir,
    Path workDir) {

  static BenchSettings fromSystemProperties() {
    return new BenchSettings(
        intProperty("bench.repetitions", 3),
        intProperty("bench.events", 100_000),
        intProperty("bench.tables", 100),
        intProperty("bench.keys", 20_000),
        intProperty("bench.converter.events", 100_000),
        intProperty("bench.memory.tables", 500),
        intProperty("bench.memory.events.per.table", 20),
        intProperty("bench.latency.seconds", 30),
        // the steady rate before the measured rows: the first seconds of 100 tables' rows reached
        // Kafka up to ~3 s late in the benchmark's one cold JVM, for every consumer (issue 14, s17)
        intProperty("bench.latency.warmup.seconds", 15),
        intProperty("bench.latency.rate", 100),
        // issue 14: the latency target holds at 100 tables too; the same rows, spread over them
        intList("bench.latency.tables", "1,100"),
        intProperty("bench.source.events", 100_000),
        intProperty("bench.cost.events", 30_000),
        intList("bench.cost.tables", "1,10,100"),
        intList("bench.cost.sizes", "100000,1000000"),
        // the do-nothing sink's data is "done" when the worker commits its offsets, every second
        // (offset.flush.interval.ms=1000): the Changelake sink commits as often, so a run's end
        // waits equally long for both
        intProperty("bench.commit.interval.ms", 1_000),
        // scaling runs (issue 14): long enough that several 10 s commit rounds fall inside a run
        intProperty("bench.scale.repetitions", 3),
        intProperty("bench.scale.events", 300_000),
        intList("bench.scale.tables", "1,100,1000"),
        intProperty("bench.scale.commit.interval.ms", 10_000),
        Path.of(System.getProperty("bench.docs.dir", "../docs")).toAbsolutePath().normalize(),
        Path.of(System.getProperty("java.io.tmpdir")).resolve("bench").toAbsolutePath());
  }

  private static int intProperty(String name, int defaultValue) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? defaultValue : Integer.parseInt(value.trim());
  }

  private static int[] intList(String name, String defaultValue) {
    String value = System.getProperty(name, defaultValue);
    return java.util.Arrays.stream(value.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .mapToInt(Integer::parseInt)
        .toArray();
  }

  /**
   * The table counts whose Changelake runs at the scaling interval run once more under JFR after
   * the measured repetitions, unrecorded ({@code -Dbench.scale.profile.tables}, default 1 and 100:
   * the 1- and 2-task runs on one table and the 100-table run; empty: none); the recordings stay in
   * {@link #workDir} for a closer look.
   */
  int[] scaleProfileTables() {
    return intList("bench.scale.profile.tables", "1,100");
  }

  /**
   * Events of the one-table scaling workload ({@code -Dbench.scale.one.table.events}, default the
   * same as every workload's): two tasks read 300,000 events in about 5 s, too short a run to tell
   * a second task's gain from the JIT and one commit round (h2, session 14).
   */
  int scaleOneTableEvents() {
    return intProperty("bench.scale.one.table.events", scaleEvents);
  }

  /**
   * Events of the workloads of 2 to {@link #MANY_TABLES_MAX} tables ({@code
   * -Dbench.scale.many.tables.events}, default 1,000,000): on 300,000 a 100-table run at the 10 s
   * interval had ~11 sampled intervals in rounds, and its reads during rounds against between moved
   * from 0.72 to 0.88 with the run; on 1,000,000, 55–69 (sessions 18–19). More tables keep {@link
   * #scaleEvents}: their case is the heap's.
   */
  int scaleManyTablesEvents(int tables) {
    return tables > MANY_TABLES_MAX
        ? scaleEvents
        : intProperty("bench.scale.many.tables.events", 1_000_000);
  }

  static final int MANY_TABLES_MAX = 100;

  /**
   * Events of the one-table workload the stall cases read ({@code -Dbench.scale.stall.events},
   * default 1,000,000, ~3.8 GB on the broker): the Changelake sink with 1 and 2 tasks committing
   * every {@link #commitIntervalMs}, whose reads during commit rounds then rest on enough sampled
   * 100 ms intervals per run: 40-42 with 1 task, 54-58 with 2 on a quiet machine (h1, session 16;
   * the 10 s cases on 500,000 events: 2-5). It adds about 1.5 min to three repetitions.
   */
  int scaleStallEvents() {
    return intProperty("bench.scale.stall.events", 1_000_000);
  }

  /** Unrecorded passes over the smallest scaling workload before the first measured run. */
  int scaleWarmUps() {
    return intProperty("bench.scale.warmups", 1);
  }

  /** True when a measurement group was not excluded with {@code -Dbench.skip=a,b}. */
  static boolean enabled(String group) {
    String skip = System.getProperty("bench.skip", "");
    String only = System.getProperty("bench.only", "");
    if (!only.isBlank()) {
      return java.util.Arrays.asList(only.split(",")).contains(group);
    }
    return !java.util.Arrays.asList(skip.split(",")).contains(group);
  }
}
