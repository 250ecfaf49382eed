package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.changelake.e2e.changelog.ItemsChangelog;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.connect.BrokerProcess;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectWorkerProcess;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.TaskStateWatch;
import io.changelake.e2e.postgres.ChangeLoad;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 14: the only Kafka broker goes away for 30 s, twice, while Debezium streams inserts,
 * updates and deletes into two sink tasks (4 partitions) and the changelog source publishes the
 * table with exactly-once ({@code exactly.once.support=required}, a transaction per snapshot). The
 * broker runs in its own JVM on a fixed port with a log directory that survives it ({@link
 * BrokerProcess}); it is killed with SIGKILL once and stopped gracefully once, each time for longer
 * than the worker's group session (6 s) and the producers' request timeouts (30 s), and started
 * again on the same port. The Connect worker runs in its own JVM too, as in a deployment.
 *
 * <p>The worker keeps the test platform's {@code scheduled.rebalance.max.delay.ms=2000}: a worker
 * that cannot reach its group coordinator for that long stops all its tasks (Connect's guard
 * against running them twice) and starts them again once the broker is back and the group has
 * rebalanced. That is the harder path — stops that time out while a consumer or producer call
 * blocks, task instances started while the previous one still winds down, transactional producers
 * fencing their predecessors — so the tasks go UNASSIGNED on purpose here. (With Connect's default
 * of 5 minutes a worker keeps its tasks running through a 30 s outage.) It also keeps the test
 * platform's {@code worker.sync.timeout.ms=30000}: on this exactly-once worker each source task
 * start (Debezium's too) first reads the config topic to its end for zombie fencing within that
 * time, and with Connect's 3 s a CI run saw Debezium's task fail for good at its restart after the
 * outage ("Failed to read to end of config topic before performing zombie fencing").
 *
 * <p>Afterwards the table equals the database row by row, the changelog read with {@code
 * read_committed} replays into the same rows with every change exactly once, no task was ever
 * FAILED (the worker's status is polled every 250 ms throughout) and every task runs again: nobody
 * had to restart anything.
 */
class BrokerRestartTest {
  private static final String NAME = "b14";
  private static final String PG = NAME + "-pg";
  private static final String SINK = NAME + "-sink";
  private static final String SOURCE = NAME + "-source";
  private static final String CHANGELOG = NAME + "cl." + NAME + ".items";
  private static final Duration OUTAGE = Duration.ofSeconds(30);
  private static final Duration CATCH_UP = Duration.ofSeconds(180);

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  static Path dir;

  static PostgresServer pg;
  static BrokerProcess broker;
  static ConnectWorkerProcess worker;

  @BeforeAll
  static void start() {
    pg = PostgresServer.start();
    broker = BrokerProcess.start(dir.resolve("broker"));
    worker =
        ConnectWorkerProcess.start(
            dir.resolve("worker"),
            broker.bootstrapServers(),
            NAME + "-workers",
            Map.of("exactly.once.source.support", "enabled"));
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void aBrokerKilledAndAStoppedBrokerAreRiddenOutBySinkAndExactlyOnceSource() throws Exception {
    Path warehouse = dir.resolve("lake");
    pg.createDatabase(NAME);
    ChangeLoad.createTable(pg, NAME);
    Map<String, String> debezium = DebeziumPostgres.config(pg, NAME, NAME, "public.items");
    debezium.put("topic.creation.default.partitions", "4");
    worker.putConnector(PG, debezium);
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, NAME + "\\..*", NAME);
    sink.put("tasks.max", "2");
    sink.put("commit.interval.ms", "500");
    sink.put("compaction.interval.ms", "3000");
    worker.putConnector(SINK, sink);
    awaitRunning(PG, 1);
    awaitRunning(SINK, 2);
    LakeTable lake = new LakeTable(LakeTableReader.fileWarehouse(warehouse), NAME, "items");
    awaitLakeEqualsDatabase(lake);
    Map<String, String> source =
        ChangelakeConnectors.source(warehouse, NAME + ".items", NAME + "cl");
    source.put("exactly.once.support", "required");
    source.put("transaction.boundary", "connector");
    worker.putConnector(SOURCE, source);
    awaitRunning(SOURCE, 1);

    try (TaskStateWatch watch = TaskStateWatch.start(worker, PG, SINK, SOURCE);
        ChangeLoad load = ChangeLoad.start(pg, NAME)) {
      load.awaitRounds(10);
      broker.kill();
      load.runFor(OUTAGE);
      broker.launch();
      load.awaitRounds(load.rounds() + 10);
      broker.stop();
      load.runFor(OUTAGE);
      broker.launch();
      load.awaitRounds(load.rounds() + 10);
      load.close();
      awaitLakeEqualsDatabase(lake);
      ItemsChangelog.awaitEqualsDatabase(
          broker.bootstrapServers(), pg, NAME, CHANGELOG, BrokerRestartTest::failure, CATCH_UP);
      assertThat(watch.failed()).as("failed tasks").isEmpty();
    }
    awaitRunning(PG, 1);
    awaitRunning(SINK, 2);
    awaitRunning(SOURCE, 1);
  }

  private static void awaitLakeEqualsDatabase(LakeTable lake) {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, NAME, "public", "items"),
        lake,
        CATCH_UP,
        BrokerRestartTest::failure);
  }

  private static void awaitRunning(String connector, int tasks) {
    try {
      Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> worker.running(connector, tasks) || failure() != null);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          connector + " not running in 120 s: " + worker.status(connector) + "; " + worker.logs(),
          e);
    }
    assertThat(failure()).as("connector failure").isNull();
  }

  /** The failed connectors and tasks with their traces, or null while none has failed. */
  private static String failure() {
    StringBuilder s = new StringBuilder();
    for (String name : new String[] {PG, SINK, SOURCE}) {
      JsonNode status;
      try {
        status = worker.status(name);
      } catch (RuntimeException unreachable) {
        return "the worker's REST API does not answer: " + unreachable + "; " + worker.logs();
      }
      if (status == null) {
        continue;
      }
      if ("FAILED".equals(status.path("connector").path("state").asText())) {
        s.append(name).append(" FAILED: ").append(status.path("connector").path("trace").asText());
      }
      for (JsonNode t : status.path("tasks")) {
        if ("FAILED".equals(t.path("state").asText())) {
          s.append(name)
              .append(" task ")
              .append(t.path("id").asInt())
              .append(" FAILED: ")
              .append(t.path("trace").asText())
              .append('\n');
        }
      }
    }
    return s.isEmpty() ? null : s + "worker log " + worker.logs();
  }
}
