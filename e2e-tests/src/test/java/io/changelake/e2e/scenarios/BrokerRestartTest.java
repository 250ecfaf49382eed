package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.changelog.ItemsChangelog;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.LakeTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectPlatform;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.TaskStateWatch;
import io.changelake.e2e.postgres.ChangeLoad;
import io.changelake.e2e.postgres.PostgresServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 10: the Kafka broker is stopped for 15 s and started again (same port, same logs) while
 * Debezium streams changes into two sink tasks and the changelog source publishes the table with
 * exactly-once ({@code exactly.once.support=required}, a transaction per snapshot). Afterwards the
 * table equals the database, the changelog read with {@code read_committed} replays into the same
 * rows with every change exactly once, and no task ever left RUNNING (polled every 250 ms).
 */
class BrokerRestartTest {
  private static final String NAME = "b1";
  private static final Duration CATCH_UP = Duration.ofSeconds(180);

  @TempDir static Path warehouse;
  static PostgresServer pg;
  static ConnectPlatform connect;

  @BeforeAll
  static void start() throws IOException {
    pg = PostgresServer.start();
    Properties broker = new Properties();
    // a fixed port: clients find the restarted broker where it was
    broker.put("listeners", "EXTERNAL://localhost:" + freePort());
    broker.put("transaction.state.log.replication.factor", "1");
    broker.put("transaction.state.log.min.isr", "1");
    connect =
        ConnectPlatform.start(
            "broker-restart", 1, Map.of("exactly.once.source.support", "enabled"), broker);
  }

  @AfterAll
  static void stop() {
    if (connect != null) {
      connect.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void aBrokerRestartDuringIngestAndExactlyOncePublishingLosesAndDuplicatesNothing()
      throws Exception {
    pg.createDatabase(NAME);
    ChangeLoad.createTable(pg, NAME);
    Map<String, String> debezium = DebeziumPostgres.config(pg, NAME, NAME, "public.items");
    debezium.put("topic.creation.default.partitions", "4");
    connect.deploy(NAME + "-pg", debezium, 1);
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, NAME + "\\..*", NAME);
    sink.put("tasks.max", "2");
    sink.put("commit.interval.ms", "500");
    sink.put("compaction.interval.ms", "3000");
    connect.deploy(NAME + "-sink", sink, 2);
    LakeTable lake = new LakeTable(LakeTableReader.fileWarehouse(warehouse), NAME, "items");
    awaitLakeEqualsDatabase(lake);
    Map<String, String> source =
        ChangelakeConnectors.source(warehouse, NAME + ".items", NAME + "cl");
    source.put("exactly.once.support", "required");
    source.put("transaction.boundary", "connector");
    connect.deploy(NAME + "-source", source, 1);
    String changelog = NAME + "cl." + NAME + ".items";

    try (TaskStateWatch watch =
            TaskStateWatch.start(connect, NAME + "-pg", NAME + "-sink", NAME + "-source");
        ChangeLoad load = ChangeLoad.start(pg, NAME)) {
      load.awaitRounds(10);
      connect.cluster().kafka().stopOnlyBrokers();
      load.runFor(Duration.ofSeconds(15));
      connect.cluster().kafka().restartOnlyBrokers();
      load.awaitRounds(load.rounds() + 10);
      load.close();
      awaitLakeEqualsDatabase(lake);
      ItemsChangelog.awaitEqualsDatabase(
          connect, pg, NAME, changelog, () -> connect.failure(NAME + "-source"), CATCH_UP);
      assertThat(watch.notRunning()).as("task states other than RUNNING").isEmpty();
    }
  }

  private static void awaitLakeEqualsDatabase(LakeTable lake) {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, NAME, "public", "items"),
        lake,
        CATCH_UP,
        () -> connect.failure(NAME + "-pg", NAME + "-sink"));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
