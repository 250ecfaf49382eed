package io.changelake.configs.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.configs.cli.ChangelakeCli;
import io.changelake.configs.cli.ExitCodes;
import io.changelake.configs.platform.Ports;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's run command, both ways: replaying the recorded Debezium events, and live against a
 * throwaway PostgreSQL (installed on CI by .ci/run). Each asserts on what a person reads.
 */
class QuickstartTest {
  @TempDir Path dir;

  private CliResult quickstart(String... extra) {
    String[] args = new String[extra.length + 9];
    args[0] = "quickstart";
    args[1] = "--dir";
    args[2] = dir.resolve("state").toString();
    args[3] = "--kafka-port";
    args[4] = String.valueOf(Ports.free());
    args[5] = "--controller-port";
    args[6] = String.valueOf(Ports.free());
    args[7] = "--connect-port";
    args[8] = String.valueOf(Ports.free());
    System.arraycopy(extra, 0, args, 9, extra.length);
    StringWriter out = new StringWriter();
    int code = ChangelakeCli.run(new PrintWriter(out, true), new PrintWriter(out, true), args);
    return new CliResult(code, out.toString());
  }

  record CliResult(int code, String out) {}

  private static void assertReport(CliResult run) {
    assertThat(run.code()).as(run.out()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        // the table's final rows: the update, the delete and the added column arrived
        .containsPattern("1 +Ada Lovelace +ada@example.com +platinum +null")
        .containsPattern("2 +Grace Hopper +grace@example.com +silver +Arlington")
        .containsPattern("4 +Edsger Dijkstra +edsger@example.com +gold +Nuenen")
        .doesNotContain("Alan Turing     alan@example.com")
        .contains("(3 rows)")
        // the schema history shows the ALTER TABLE
        .containsPattern("schema 1: \\+ city STRING")
        // snapshots and the published changelog
        .containsPattern("\\n  1 +\\d\\d:\\d\\d:\\d\\d  APPEND")
        .contains("=== Changelog published to topic lake.quickstart.customers")
        .contains("delete  {id=3, name=Alan Turing")
        .contains("insert  {id=4, name=Edsger Dijkstra")
        .contains("pypaimon")
        .contains("Stopped. The lake, topics and logs stay in");
    assertChangelog(run);
  }

  @Test
  void replaysTheRecordedEventsThroughSinkTableAndSource() {
    CliResult run = quickstart("--replay");

    assertThat(run.out())
        .contains("[2/6] Replaying Debezium events recorded from PostgreSQL")
        .contains("[5/6] Replaying the recorded changes");
    assertReport(run);
  }

  @Test
  void runsTheLiveChainAgainstALocalPostgres() {
    // .ci/run installs PostgreSQL; without it the replay test above covers the quickstart
    assertThat(LocalPostgres.installedBin())
        .as("no PostgreSQL server installed: run .ci/run or apt-get install -y postgresql")
        .isPresent();
    CliResult run = quickstart();

    assertThat(run.out())
        .contains("[2/6] Starting a throwaway PostgreSQL")
        .contains("[5/6] Changing the database while everything runs");
    assertReport(run);
  }

  private static void assertChangelog(CliResult run) {
    assertThat(run.out())
        // the full-state read, or an insert when its commit landed just after the read started
        .containsPattern("(read|insert) +\\{id=3, name=Alan Turing")
        .contains(
            "update  {id=1, name=Ada Lovelace, email=ada@example.com, tier=gold, city=null}"
                + " -> {id=1, name=Ada Lovelace, email=ada@example.com, tier=platinum, city=null}");
  }
}
