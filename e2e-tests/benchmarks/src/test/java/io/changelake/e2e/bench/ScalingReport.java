package io.changelake.e2e.bench;

import io.changelake.e2e.bench.Sinks.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The scaling section of docs/benchmarks.md (issue 14's targets): rate against tasks and tables
 * next to the do-nothing sink, reads during commit rounds against reads between them, the heap
 * high-water mark with many tables, and charts of rate against tasks and against tables.
 */
final class ScalingReport {
  private static final String M = ScalingRuns.MEASUREMENT;
  private static final String DO_NOTHING = Kind.DO_NOTHING.label;
  private static final String CHANGELAKE = Kind.CHANGELAKE.label;

  private final BenchSettings settings;
  private final Results results;
  private final Report report;

  ScalingReport(BenchSettings settings, Results results, Report report) {
    this.settings = settings;
    this.results = results;
    this.report = report;
  }

  void write(StringBuilder md, Path docs) {
    if (results.rows().stream().noneMatch(r -> r.measurement().equals(M))
        && results.failures(M).isEmpty()) {
      return;
    }
    List<Integer> tables = new ArrayList<>();
    for (int t : settings.scaleTableCounts()) {
      tables.add(t);
    }
    md.append("## 6. Scaling with tasks and tables (issue 14)\n\n");
    md.append(
            String.format(
                Locale.ROOT,
                "%,d events per topic set (one table: %,d; up to %d tables: %,d), commit interval %.0f s, JsonConverter. One table: one"
                    + " topic with 2 partitions; N tables: one topic each. The rate here is the"
                    + " **read rate**: events divided by the time from submitting the connector"
                    + " until its tasks' consumers had handed every event to the task (sampled"
                    + " every 100 ms from the consumers' `records-consumed-total`), so a long"
                    + " commit interval does not count against short runs. *During commit"
                    + " rounds*: 100 ms intervals in which a commit round of the task was in flight"
                    + " at any moment, from its seal to its last table's commit on whichever thread"
                    + " (the sink's `commit-rounds-started-total` at the interval's end above its"
                    + " `commit-rounds-total` at the start); *between*: the other intervals; rounds"
                    + " are counted only while records are read, so a run read in full before its"
                    + " first round has none. The during/between figure is the median of the runs'"
                    + " own ratios, each taken only where both sides have at least %d intervals"
                    + " (counted per task: 2 tasks reading 1 s make 20); its row names the"
                    + " intervals in rounds per run it rests on, and reads \"not measured\" where"
                    + " no run had enough. *JVM cores busy*: the whole JVM's CPU (broker and"
                    + " worker run in it) over the same intervals, each counted once: near the"
                    + " machine's cores during rounds, a round's work takes the cores the reading"
                    + " needs. At the %.0f s interval a one-table run reads its workload"
                    + " in a round or two per task, too few intervals. The *stall cases* (the"
                    + " Changelake sink committing every %.0f s with 1 and 2 tasks) read a longer"
                    + " one-table workload of %,d events instead, so their figures rest on tens of"
                    + " rounds; their read rates are of that workload. %s (the largest table"
                    + " count once), after %d unrecorded pass(es) of every sink and task count over"
                    + " the smallest workload (the JIT's warm-up). The first table holds"
                    + " every figure issue 14 asks for, measured / required / met: the latency"
                    + " rows are section 2's (their own PostgreSQL pipeline at the %.0f s"
                    + " interval), the converter row is the in-process comparison above, the"
                    + " short-interval row is the Changelake sink committing every %.0f s on the"
                    + " same topics, against the same do-nothing run.\n\n",
                settings.scaleEvents(),
                settings.scaleOneTableEvents(),
                BenchSettings.MANY_TABLES_MAX,
                settings.scaleManyTablesEvents(BenchSettings.MANY_TABLES_MAX),
                settings.scaleCommitIntervalMs() / 1000.0,
                ConsumptionSampler.MIN_INTERVALS,
                settings.scaleCommitIntervalMs() / 1000.0,
                settings.commitIntervalMs() / 1000.0,
                settings.scaleStallEvents(),
                settings.scaleRepetitions() == 1
                    ? "One repetition per case"
                    : "Median of " + settings.scaleRepetitions() + " repetitions",
                settings.scaleWarmUps(),
                settings.commitIntervalMs() / 1000.0,
                settings.commitIntervalMs() / 1000.0))
        .append("| target | measured | required | met |\n|---|---|---|---|\n");
    String cl1 = ScalingRuns.caseName(Kind.CHANGELAKE, 1, 1);
    String cl2 = ScalingRuns.caseName(Kind.CHANGELAKE, 2, 1);
    String dn1 = ScalingRuns.caseName(Kind.DO_NOTHING, 1, 1);
    String dn2 = ScalingRuns.caseName(Kind.DO_NOTHING, 2, 1);
    target(md, "2 tasks vs 1 task, Changelake, 1 table (read events/s)", cl2, cl1, 1.8);
    // the ceiling's own ratio: on two cores it cannot exceed about 2, so a figure far from what the
    // cores allow says the machine's load drifted between the runs
    target(
        md,
        "(reference) 2 tasks vs 1 task, do-nothing sink, 1 table (read events/s)",
        dn2,
        dn1,
        Double.NaN);
    // what 2 tasks do with the CPU they get: events read per JVM CPU-second, 2 tasks against 1
    // (1.0: a second task costs no more per event, so the rate grows with the cores it is given)
    reported(md, "2 tasks vs 1 task, Changelake, events read per JVM CPU-second", cl2, cl1);
    reported(md, "(reference) the same, do-nothing sink", dn2, dn1);
    target(md, "Changelake vs do-nothing, 2 tasks, 1 table (read events/s)", cl2, dn2, 0.85);
    target(md, "Changelake vs do-nothing, 1 task, 1 table (read events/s)", cl1, dn1, 0.9);
    ceiling(md, "Changelake CPU per event vs do-nothing, 1 task, 1 table", cl1, dn1, 1.2);
    for (int t : tables) {
      if (t == 1) {
        continue;
      }
      target(
          md,
          "Changelake vs do-nothing, 1 task, " + t + " tables (read events/s)",
          ScalingRuns.caseName(Kind.CHANGELAKE, 1, t),
          ScalingRuns.caseName(Kind.DO_NOTHING, 1, t),
          t >= 1000 ? Double.NaN : 0.7);
    }
    for (int t : tables) {
      if (t >= 1000) {
        continue;
      }
      stallRow(md, ScalingRuns.caseName(Kind.CHANGELAKE, 1, t));
    }
    stallRow(md, cl2);
    for (int t : tables) {
      if (t < 1000 && settings.commitIntervalMs() != settings.scaleCommitIntervalMs()) {
        for (int tasks = 1; tasks <= (t == 1 ? 2 : 1); tasks++) {
          stallRow(
              md,
              ScalingRuns.shortIntervalCaseName(
                  Kind.CHANGELAKE, tasks, t, settings.commitIntervalMs()));
        }
      }
    }
    for (int t : tables) {
      if (t > 1 && t < 1000 && settings.commitIntervalMs() != settings.scaleCommitIntervalMs()) {
        target(
            md,
            String.format(
                Locale.ROOT,
                "Changelake vs do-nothing, 1 task, %d tables, commits every %.0f s (read events/s)",
                t,
                settings.commitIntervalMs() / 1000.0),
            ScalingRuns.shortIntervalCaseName(Kind.CHANGELAKE, 1, t, settings.commitIntervalMs()),
            ScalingRuns.caseName(Kind.DO_NOTHING, 1, t),
            Double.NaN);
      }
    }
    for (int t : tables) {
      if (t >= 1000) {
        heapRow(md, ScalingRuns.caseName(Kind.CHANGELAKE, 1, t), t);
      }
    }
    // measured by the latency section (its own PostgreSQL pipeline): the target's rows belong here
    for (int t : settings.latencyTableCounts()) {
      md.append(report.latencyTargetRow(t));
    }
    converterRow(md);
    md.append('\n');
    md.append(
        "| case | read events/s | events/s to the last commit | CPU µs/event (JVM) | task-thread"
            + " CPU µs/event | read/s during commit rounds | read/s between rounds | s in commit"
            + " rounds | 100 ms intervals in rounds / between, per run | JVM cores busy during"
            + " rounds / between | live heap high-water MiB"
            + " |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int t : tables) {
      int[] taskCounts = t == 1 ? new int[] {1, 2} : new int[] {1};
      for (int tasks : taskCounts) {
        List<String> cases = new ArrayList<>();
        for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
          cases.add(ScalingRuns.caseName(kind, tasks, t));
        }
        if ((tasks == 1 || t == 1)
            && t < 1000
            && settings.commitIntervalMs() != settings.scaleCommitIntervalMs()) {
          cases.add(
              ScalingRuns.shortIntervalCaseName(
                  Kind.CHANGELAKE, tasks, t, settings.commitIntervalMs()));
        }
        for (String c : cases) {
          Kind kind = c.startsWith(CHANGELAKE) ? Kind.CHANGELAKE : Kind.DO_NOTHING;
          md.append("| ")
              .append(c)
              .append(" | ")
              .append(report.cell(M, c, "read_events_per_s", "%,.0f"))
              .append(" | ")
              .append(report.cell(M, c, "events_per_s", "%,.0f"))
              .append(" | ")
              .append(report.cell(M, c, "cpu_us_per_event", "%.1f"))
              .append(" | ")
              .append(report.cell(M, c, "task_cpu_us_per_event", "%.1f"))
              .append(" | ")
              .append(
                  kind == Kind.CHANGELAKE
                      ? report.cell(M, c, "read_during_commits_per_s", "%,.0f")
                      : "–")
              .append(" | ")
              .append(
                  kind == Kind.CHANGELAKE
                      ? report.cell(M, c, "read_between_commits_per_s", "%,.0f")
                      : "–")
              .append(" | ")
              .append(
                  kind == Kind.CHANGELAKE ? report.cell(M, c, "seconds_in_commits", "%.1f") : "–")
              .append(" | ")
              .append(kind == Kind.CHANGELAKE ? intervals(c) : "–")
              .append(" | ")
              .append(
                  kind == Kind.CHANGELAKE
                      ? report.cell(M, c, "cores_during_commits", "%.2f")
                          + " / "
                          + report.cell(M, c, "cores_between_commits", "%.2f")
                      : "–")
              .append(" | ")
              .append(report.cell(M, c, "peak_live_heap_mb", "%.0f"))
              .append(" |\n");
        }
      }
    }
    cpuWhileReading(md, List.of(dn1, cl1, dn2, cl2));
    md.append("\n![rate against tasks](charts/scaling-tasks.png)\n");
    md.append("![rate against tables](charts/scaling-tables.png)\n\n");
    List<String> failures = results.failures(M);
    if (!failures.isEmpty()) {
      md.append("Failed in this run:\n\n");
      failures.forEach(f -> md.append("- ").append(f.replace("\n", " ")).append('\n'));
      md.append('\n');
    }
    BarChart byTasks =
        new BarChart(
            "Read rate against tasks, 1 table",
            "events/s",
            List.of("1 task", "2 tasks"),
            List.of(DO_NOTHING, CHANGELAKE));
    for (int tasks : new int[] {1, 2}) {
      for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
        byTasks.set(
            tasks == 1 ? "1 task" : "2 tasks",
            kind.label,
            results.stats(M, ScalingRuns.caseName(kind, tasks, 1), "read_events_per_s"));
      }
    }
    byTasks.write(docs.resolve("charts").resolve("scaling-tasks.png"));
    List<String> groups = tables.stream().map(t -> t + (t == 1 ? " table" : " tables")).toList();
    BarChart byTables =
        new BarChart(
            "Read rate against tables, 1 task",
            "events/s",
            groups,
            List.of(DO_NOTHING, CHANGELAKE));
    for (int i = 0; i < tables.size(); i++) {
      for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
        byTables.set(
            groups.get(i),
            kind.label,
            results.stats(M, ScalingRuns.caseName(kind, 1, tables.get(i)), "read_events_per_s"));
      }
    }
    byTables.write(docs.resolve("charts").resolve("scaling-tables.png"));
  }

  private void target(StringBuilder md, String label, String a, String b, double required) {
    Report.Ratio r = report.ratio(M, a, M, b, "read_events_per_s");
    md.append("| ")
        .append(label)
        .append(" | ")
        .append(r.text())
        .append(" | ")
        .append(Double.isNaN(required) ? "reported" : "≥ " + required)
        .append(" | ")
        .append(met(r, required, true))
        .append(" |\n");
  }

  private void reported(StringBuilder md, String label, String a, String b) {
    Report.Ratio r = report.ratio(M, a, M, b, "read_events_per_cpu_s");
    md.append("| ").append(label).append(" | ").append(r.text()).append(" | reported | – |\n");
  }

  /**
   * The CPU of the 1-table cases while their tasks read: the cores the whole JVM kept busy (broker
   * and worker in it) of those available, and the thread groups taking the most of them.
   */
  private void cpuWhileReading(StringBuilder md, List<String> cases) {
    md.append(
        "\n| case, while reading | JVM cores busy | of cores | events read per JVM CPU-s |"
            + " cores by thread group (medians, largest first) |\n|---|---|---|---|---|\n");
    for (String c : cases) {
      java.util.Map<String, List<Double>> byGroup = new java.util.TreeMap<>();
      results.rows().stream()
          .filter(
              r ->
                  r.measurement().equals(M)
                      && r.caseName().equals(c)
                      && r.metric().equals("cores_of_threads_while_reading"))
          .forEach(r -> byGroup.computeIfAbsent(r.note(), g -> new ArrayList<>()).add(r.value()));
      String groups =
          byGroup.entrySet().stream()
              .map(e -> java.util.Map.entry(e.getKey(), Results.Stats.of(e.getValue()).median()))
              .sorted(java.util.Map.Entry.<String, Double>comparingByValue().reversed())
              .limit(6)
              .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
              .collect(java.util.stream.Collectors.joining(", "));
      List<String> cells =
          List.of(
              c,
              report.cell(M, c, "cores_while_reading", "%.2f"),
              report.cell(M, c, "cores_available", "%.0f"),
              report.cell(M, c, "read_events_per_cpu_s", "%,.0f"),
              groups.isEmpty() ? "–" : groups);
      md.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
  }

  private void ceiling(StringBuilder md, String label, String a, String b, double required) {
    Report.Ratio r = report.ratio(M, a, M, b, "cpu_us_per_event");
    md.append("| ")
        .append(label)
        .append(" | ")
        .append(r.text())
        .append(" | ≤ ")
        .append(required)
        .append(" | ")
        .append(met(r, required, false))
        .append(" |\n");
  }

  private static String met(Report.Ratio r, double required, boolean atLeast) {
    if (!r.known()) {
      return "not measured";
    }
    if (Double.isNaN(required)) {
      return "–";
    }
    return (atLeast ? r.ofMedians() >= required : r.ofMedians() <= required) ? "yes" : "**no**";
  }

  /** The caching converter's lead over JsonConverter (section "JsonConverter vs ..."): kept. */
  private void converterRow(StringBuilder md) {
    String c = ChangelakeBenchmark.CONVERTER;
    Report.Ratio r = report.ratio(c, "caching-json / 1 table", c, "json / 1 table", "events_per_s");
    md.append("| Caching converter vs JsonConverter, converting in-process, 1 table (events/s) | ")
        .append(r.text())
        .append(" | ≥ 1.8 (its lead of about 2× kept) | ")
        .append(met(r, 1.8, true))
        .append(" |\n");
  }

  /**
   * Read rate during commit rounds over the rate between them, within one case: the median of the
   * runs' own ratios where both sides had enough sampled intervals, with what it rests on.
   */
  private void stallRow(StringBuilder md, String c) {
    Results.Stats in = results.stats(M, c, "intervals_during_commits");
    Results.Stats ratio = results.stats(M, c, "read_during_over_between");
    String measured;
    String met;
    if (in.n() == 0) {
      // a CSV from before the intervals were counted (Report's re-rendering of an old run)
      Report.Ratio r =
          report.ratio(M, c, M, c, "read_during_commits_per_s", "read_between_commits_per_s");
      measured = r.known() ? r.text() + " (intervals not counted)" : r.text();
      met = met(r, 0.8, true);
    } else if (ratio.n() == 0) {
      Results.Stats between = results.stats(M, c, "intervals_between_commits");
      measured =
          String.format(
              Locale.ROOT,
              "not measured: %s intervals in rounds / %s between per run, fewer than %d on a side%s",
              count(in),
              count(between),
              ConsumptionSampler.MIN_INTERVALS,
              // the rounds themselves are the steady state then: only the do-nothing sink is a
              // baseline left to read the rate against
              between.median() < in.median()
                  ? " (a round was in flight nearly all the time: compare the read rate with the"
                      + " do-nothing sink's)"
                  : "");
      met = "not measured";
    } else {
      measured =
          String.format(
              Locale.ROOT,
              "**%.2f** [%.2f – %.2f] on %s intervals in rounds per run%s",
              ratio.median(),
              ratio.min(),
              ratio.max(),
              count(in),
              ratio.n() < in.n()
                  ? String.format(
                      Locale.ROOT,
                      " (%d of %d runs; the others had fewer than %d on a side)",
                      ratio.n(),
                      in.n(),
                      ConsumptionSampler.MIN_INTERVALS)
                  : "");
      met = ratio.median() >= 0.8 ? "yes" : "**no**";
    }
    md.append("| Reads during commit rounds vs between, ")
        .append(c)
        .append(" | ")
        .append(measured)
        .append(" | ≥ 0.8 | ")
        .append(met)
        .append(" |\n");
  }

  /** The case table's cell: sampled intervals in rounds / between them per run, medians. */
  private String intervals(String c) {
    Results.Stats in = results.stats(M, c, "intervals_during_commits");
    return in.n() == 0
        ? "–"
        : count(in) + " / " + count(results.stats(M, c, "intervals_between_commits"));
  }

  private static String count(Results.Stats s) {
    return s.min() == s.max()
        ? String.format(Locale.ROOT, "%.0f", s.median())
        : String.format(Locale.ROOT, "%.0f [%.0f–%.0f]", s.median(), s.min(), s.max());
  }

  private void heapRow(StringBuilder md, String c, int tables) {
    Results.Stats live = results.stats(M, c, "peak_live_heap_mb");
    Results.Stats read = results.stats(M, c, "read_events_per_s");
    String measured =
        live.n() == 0 || read.n() == 0
            ? "not measured"
                + (results.failures(M).stream().anyMatch(f -> f.startsWith(c)) ? " (failed)" : "")
            : String.format(
                Locale.ROOT,
                "completed; live heap high-water mark **%.0f MiB** (used incl. garbage %.0f MiB) of"
                    + " %.0f MiB max",
                live.median(),
                results.stats(M, c, "peak_heap_mb").median(),
                results.stats(M, c, "max_heap_mb").median());
    String met =
        live.n() == 0 || read.n() == 0 ? "**no**" : live.median() < 1024 ? "yes" : "**no**";
    md.append("| ")
        .append(tables)
        .append(" tables in one task, whole JVM under -Xmx1g | ")
        .append(measured)
        .append(" | completes within 1 GiB | ")
        .append(met)
        .append(" |\n");
  }
}
