package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.changelog.ItemsChangelog;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.TaskStateWatch;
import io.changelake.e2e.postgres.ChangeLoad;
import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.testing.S3ProxyServer;
import io.changelake.testkit.postgres.PostgresServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 9: the dependencies go away for longer than their clients' own retries, and come back.
 * The warehouse is on S3 (an s3proxy child process) with Paimon's JDBC catalog and lock in a
 * PostgreSQL of its own (not the one Debezium reads, so it can be restarted alone); two sink tasks
 * share every table (Debezium's topics have 4 partitions). Hadoop S3A is told to give up after one
 * attempt and a 2 s connect timeout, so a 20 s outage is far longer than its retries: without the
 * connectors' own waiting the tasks fail at the first failed request.
 *
 * <p>Each test streams inserts, updates and deletes all along, and checks what a user would: the
 * table equals the database row by row, the changelog (where published) replays into the same rows
 * with every change exactly once, the tasks never left RUNNING (their status is polled every 250 ms
 * throughout), and the tasks did retry (their {@code dependency-retries-total} metric): the outage
 * really reached them.
 */
class OutageTest {
  private static final Duration CATCH_UP = Duration.ofSeconds(180);
  private static final Duration OUTAGE = Duration.ofSeconds(20);
  private static final String BUCKET = "lake";
  private static final int TASKS = 2;

  @TempDir static Path dir;
  static PostgresServer pg;
  static PostgresServer catalogPg;
  static S3ProxyServer s3;
  static io.changelake.testkit.connect.ConnectPlatform connect;

  @BeforeAll
  static void start() throws IOException {
    pg = PostgresServer.start();
    catalogPg = PostgresServer.start();
    s3 = S3ProxyServer.start(dir);
    s3.createBucket(BUCKET);
    connect = io.changelake.e2e.connect.PluginWorkers.start("outage");
  }

  @AfterAll
  static void stop() {
    if (connect != null) {
      connect.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (catalogPg != null) {
      catalogPg.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void anS3OutageLongerThanS3ARetriesIsRiddenOutBySinkAndSource() throws Exception {
    String name = "f1";
    startPipeline(name);
    Map<String, String> source = ChangelakeConnectors.source(dir, name + ".items", name + "cl");
    source.putAll(catalogProperties(name));
    source.putAll(retryProperties());
    connect.deploy(name + "-source", source, 1);
    String changelog = name + "cl." + name + ".items";

    try (TaskStateWatch watch = TaskStateWatch.start(connect, name + "-sink", name + "-source");
        ChangeLoad load = ChangeLoad.start(pg, name)) {
      load.awaitRounds(10);
      s3.stop();
      load.runFor(OUTAGE);
      s3.restart();
      load.awaitRounds(load.rounds() + 10);
      load.close();
      awaitLakeEqualsDatabase(name, watch);
      ItemsChangelog.awaitEqualsDatabase(
          connect, pg, name, changelog, () -> failure(watch, name + "-source"), CATCH_UP);
      assertThat(watch.notRunning()).as("task states other than RUNNING").isEmpty();
    }
    assertThat(sinkRetries(name, "object-store"))
        .as("retries of the sink tasks after object store failures")
        .isPositive();
    assertThat(taskRetries(name + "-source", 0, "object-store"))
        .as("retries of the source task after object store failures")
        .isPositive();
    connect.delete(name + "-source");
    connect.delete(name + "-sink");
    connect.delete(name + "-pg");
  }

  @Test
  void aSourceTaskStartedWhileTheObjectStoreIsAwayWaitsForItInsteadOfFailing() throws Exception {
    String name = "f4";
    String connector = name + "-source";
    startPipeline(name);
    Map<String, String> source = ChangelakeConnectors.source(dir, name + ".items", name + "cl");
    source.putAll(catalogProperties(name));
    source.putAll(retryProperties());
    connect.deploy(connector, source, 1);
    String changelog = name + "cl." + name + ".items";

    try (TaskStateWatch watch = TaskStateWatch.start(connect, name + "-sink");
        ChangeLoad load = ChangeLoad.start(pg, name)) {
      load.awaitRounds(5);
      s3.stop();
      // the task starts during the outage, as on a worker restarted or joining the group now
      connect.cluster().restartTask(connector, 0);
      load.runFor(OUTAGE);
      assertThat(connect.failure(connector)).as("the source after starting without S3").isNull();
      assertThat(taskState(connector, 0)).isEqualTo("RUNNING");
      s3.restart();
      load.awaitRounds(load.rounds() + 10);
      load.close();
      awaitLakeEqualsDatabase(name, watch);
      ItemsChangelog.awaitEqualsDatabase(
          connect, pg, name, changelog, () -> failure(watch, connector), CATCH_UP);
      assertThat(watch.notRunning()).as("sink task states other than RUNNING").isEmpty();
    }
    assertThat(taskRetries(connector, 0, "object-store"))
        .as("retries of the restarted source task while opening its tables")
        .isPositive();
    connect.delete(connector);
    connect.delete(name + "-sink");
    connect.delete(name + "-pg");
  }

  @Test
  void aRestartOfTheCatalogAndLockDatabaseDuringCommitsIsRiddenOut() throws Exception {
    String name = "f2";
    startPipeline(name);
    try (TaskStateWatch watch = TaskStateWatch.start(connect, name + "-sink");
        ChangeLoad load = ChangeLoad.start(pg, name)) {
      load.awaitRounds(10);
      catalogPg.stop();
      load.runFor(Duration.ofSeconds(10));
      catalogPg.restart();
      load.awaitRounds(load.rounds() + 10);
      load.close();
      awaitLakeEqualsDatabase(name, watch);
      assertThat(watch.notRunning()).as("task states other than RUNNING").isEmpty();
    }
    assertThat(sinkRetries(name, "catalog"))
        .as("retries of the sink tasks after catalog database failures")
        .isPositive();
    connect.delete(name + "-sink");
    connect.delete(name + "-pg");
  }

  @Test
  void aWrongS3SecretFailsTheSinkTaskAtOnceSayingSo() throws Exception {
    String name = "f3";
    String topic = name + ".public.items";
    connect.createTopic(topic, 1);
    // one flat record: the table it creates is the first thing written to S3
    connect
        .cluster()
        .kafka()
        .produce(
            topic,
            "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"}]},"
                + "\"payload\":{\"id\":1}}",
            "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"},"
                + "{\"field\":\"qty\",\"type\":\"int64\"}]},\"payload\":{\"id\":1,\"qty\":2}}");
    catalogPg.createDatabase(name + "_catalog");
    Map<String, String> sink = ChangelakeConnectors.sink(dir, name + "\\..*", name);
    sink.putAll(catalogProperties(name));
    sink.put("paimon.s3.secret-key", "not-the-secret");
    sink.put("route.table.format", "items");
    connect.cluster().configureConnector(name + "-sink", sink);
    String trace =
        Awaitility.await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> failedTaskTrace(name + "-sink"), t -> t != null);
    assertThat(trace)
        .contains("not retried")
        .containsIgnoringCase("check paimon.s3.access-key and paimon.s3.secret-key");
    connect.delete(name + "-sink");
  }

  /** Debezium on {@code name}'s table, and the sink with two tasks writing it to S3. */
  private static void startPipeline(String name) {
    pg.createDatabase(name);
    catalogPg.createDatabase(name + "_catalog");
    ChangeLoad.createTable(pg, name);
    Map<String, String> debezium = DebeziumPostgres.config(pg, name, name, "public.items");
    debezium.put("topic.creation.default.partitions", "4");
    connect.deploy(name + "-pg", debezium, 1);
    Map<String, String> sink = ChangelakeConnectors.sink(dir, name + "\\..*", name);
    sink.putAll(catalogProperties(name));
    sink.putAll(retryProperties());
    sink.put("tasks.max", String.valueOf(TASKS));
    sink.put("commit.interval.ms", "500");
    sink.put("compaction.interval.ms", "3000");
    connect.deploy(name + "-sink", sink, TASKS);
    awaitLakeEqualsDatabase(name, null);
  }

  /** The warehouse on s3proxy, the JDBC catalog and its lock in the catalog PostgreSQL. */
  private static Map<String, String> catalogProperties(String name) {
    Map<String, String> props =
        new HashMap<>(s3.connectorProperties("s3://" + BUCKET + "/" + name));
    props.putAll(s3ClientProperties());
    props.put("paimon.metastore", "jdbc");
    props.put("paimon.uri", catalogPg.jdbcUrl(name + "_catalog"));
    props.put("paimon.jdbc.user", PostgresServer.USER);
    props.put("paimon.jdbc.password", PostgresServer.PASSWORD);
    props.put("paimon.lock.enabled", "true");
    // a lock row left behind by a commit cut off mid-way blocks the table this long
    props.put("paimon.lock-acquire-timeout", "10s");
    props.put("paimon.lock-check-max-sleep", "1s");
    return props;
  }

  /** Hadoop S3A gives up after one attempt: any outage of seconds outlasts its retries. */
  private static Map<String, String> s3ClientProperties() {
    Map<String, String> props = new HashMap<>();
    props.put("paimon.s3.attempts.maximum", "1");
    props.put("paimon.s3.retry.limit", "1");
    props.put("paimon.s3.retry.interval", "100ms");
    props.put("paimon.s3.retry.throttle.limit", "1");
    props.put("paimon.s3.retry.throttle.interval", "100ms");
    props.put("paimon.s3.connection.establish.timeout", "2000");
    props.put("paimon.s3.connection.timeout", "5000");
    return props;
  }

  /** Retries often enough to notice the dependency's return within a second or two. */
  private static Map<String, String> retryProperties() {
    return Map.of("retry.backoff.ms", "250", "retry.backoff.max.ms", "2000");
  }

  private static void awaitLakeEqualsDatabase(String name, TaskStateWatch watch) {
    Map<String, String> options = LakeCatalogs.catalogOptions(catalogProperties(name));
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, name, "public", "items"),
        new LakeTable(options, name, "items"),
        CATCH_UP,
        () -> failure(watch, name + "-pg", name + "-sink"));
  }

  private static String failure(TaskStateWatch watch, String... connectors) {
    String failed = connect.failure(connectors);
    if (failed == null && watch != null && !watch.notRunning().isEmpty()) {
      failed = "tasks left RUNNING: " + watch.notRunning();
    }
    return failed;
  }

  private static String failedTaskTrace(String connector) {
    try {
      for (ConnectorStateInfo.TaskState t : connect.cluster().connectorStatus(connector).tasks()) {
        if ("FAILED".equals(t.state())) {
          return t.trace();
        }
      }
    } catch (RuntimeException notYet) {
      // not created yet
    }
    return null;
  }

  private static String taskState(String connector, int task) {
    return connect.cluster().connectorStatus(connector).tasks().stream()
        .filter(t -> t.id() == task)
        .map(ConnectorStateInfo.TaskState::state)
        .findFirst()
        .orElse("absent");
  }

  private static long sinkRetries(String name, String dependency) throws Exception {
    long total = 0;
    for (int task = 0; task < TASKS; task++) {
      total += taskRetries(name + "-sink", task, dependency);
    }
    return total;
  }

  /** The task's {@code dependency-retries-total}, as the worker (in this JVM) publishes it. */
  private static long taskRetries(String connector, int task, String dependency) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names =
        server.queryNames(
            new ObjectName(
                "kafka.connect:type=plugins,connector=" + connector + ",task=" + task + ",*"),
            null);
    for (ObjectName n : names) {
      if (dependency.equals(n.getKeyProperty("dependency"))) {
        return ((Number) server.getAttribute(n, "dependency-retries-total")).longValue();
      }
    }
    throw new AssertionError(
        connector + " task " + task + " publishes no retries of " + dependency + ": " + names);
  }
}
