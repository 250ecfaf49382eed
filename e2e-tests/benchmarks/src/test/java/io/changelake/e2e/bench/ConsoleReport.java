package io.changelake.e2e.bench;

import java.util.List;

/**
 * The console section of docs/benchmarks.md (issue 17): how long the console takes to list a big
 * lake, on a console just started and warm.
 */
final class ConsoleReport {
  private static final String M = ConsoleListing.MEASUREMENT;

  private final Results results;
  private final Report report;

  ConsoleReport(Results results, Report report) {
    this.results = results;
    this.report = report;
  }

  void write(StringBuilder md) {
    if (results.rows().stream().noneMatch(r -> r.measurement().equals(M))
        && results.failures(M).isEmpty()) {
      return;
    }
    Results.Stats tables = results.stats(M, "setup", "tables");
    int count = tables.n() == 0 ? 0 : (int) tables.median();
    md.append("## 7. Console on a big lake (issue 17)\n\n");
    md.append(count)
        .append(" Paimon tables on local disk (one bucket, three rows and one commit each, holding")
        .append(" the offsets of one topic and a commit mark with a source time, as the sink")
        .append(" writes them; filling took ")
        .append(report.cell(M, "setup", "fill_s", "%.0f"))
        .append(" s) and one Changelake sink reading that topic on the platform's worker. Each")
        .append(" request is timed from a client on the same machine: the pipelines graph (every")
        .append(" table linked to the sink, with its freshness) and the table list. *First*: the")
        .append(" first request of a console just started (nothing cached; the operating system's")
        .append(" file cache is warm after the first console), one per console started; *warm*:")
        .append(" the requests after it, back to back (a page polls every 2 s). Target: 500")
        .append(" tables listed in under a second. The machine's 1-minute load average when")
        .append(" each console started: ")
        .append(report.cell(M, "setup", "load_average", "%.1f"))
        .append(" (2 cores).\n\n");
    md.append("| request | first, ms | warm, ms |\n|---|---|---|\n");
    for (String c : List.of(ConsoleListing.PIPELINES, ConsoleListing.TABLES)) {
      String caseName = count + " tables / " + c;
      md.append("| ")
          .append(caseName)
          .append(" | ")
          .append(report.cell(M, caseName, "first_ms", "%,.0f"))
          .append(" | ")
          .append(report.cell(M, caseName, "warm_ms", "%,.0f"))
          .append(" |\n");
    }
    report.failures(M);
    md.append('\n');
  }
}
