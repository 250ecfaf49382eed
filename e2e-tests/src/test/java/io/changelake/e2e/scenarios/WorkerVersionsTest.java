package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectWorkerProcess;
import io.changelake.e2e.connect.DebeziumEnvelopes;
import io.changelake.e2e.connect.DocumentedMetrics;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.e2e.connect.TestBroker;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.connect.ConnectPlatform;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.admin.Admin;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same plugin archive on a Connect 3.9 worker (no KIP-877 plugin metrics, its own Connect API
 * and JSON converter) and on a 4.3 worker, each in its own JVM against one 4.3 broker: on each, the
 * sink writes Debezium change events from a topic with two partitions into a table, the source
 * publishes that table's changelog to a topic, both report the build's version, and both tasks'
 * metrics are in the worker's JMX under {@code kafka.connect:type=plugins,...}: exactly the ones
 * the two READMEs' metric tables document.
 */
class WorkerVersionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROWS = 40;
  private static final Duration WAIT = Duration.ofSeconds(120);

  // not a @TempDir: the workers' logs stay in target/tmp for a failed run to be read
  private static Path dir;
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() throws IOException {
    dir =
        Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "worker-versions");
    broker = TestBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void onAConnect39WorkerSinkAndSourceRunAndPublishTheirMetricsThroughJmx() throws Exception {
    Path lib = PluginWorkers.folderFromProperty("changelake.connect39.lib", "a Connect 3.9 lib");
    Path logConfig = dir.resolve("log4j-39.properties");
    try (Writer w = Files.newBufferedWriter(logConfig)) {
      w.write(
          "log4j.rootLogger=INFO, stdout\n"
              + "log4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
              + "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
              + "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
              + "log4j.logger.org.reflections=ERROR\n"
              // what the sink task was given (partitions, offsets, puts) and did with it (rounds)
              + "log4j.logger.org.apache.kafka.connect.runtime.WorkerSinkTask=DEBUG\n"
              + "log4j.logger.io.changelake.sink.task=DEBUG\n");
    }
    List<String> jvmArgs = new ArrayList<>(List.of("-Dlog4j.configuration=" + logConfig.toUri()));
    runSinkAndSource("w39", lib.resolve("*").toString(), jvmArgs, "3.9.2");
  }

  @Test
  void onAConnect43WorkerSinkAndSourceRunAndPublishTheirMetricsThroughPluginMetrics()
      throws Exception {
    // log4j2-test.xml's levels, with the sink task's puts and rounds as on the 3.9 worker
    Path logConfig = dir.resolve("log4j2-43.xml");
    Files.writeString(
        logConfig,
        "<Configuration status=\"WARN\"><Appenders><Console name=\"out\" target=\"SYSTEM_OUT\">"
            + "<PatternLayout pattern=\"%d{HH:mm:ss.SSS} %-5level [%t] %c{1} - %msg%n\"/>"
            + "</Console></Appenders><Loggers>"
            + "<Logger name=\"io.changelake\" level=\"INFO\"/>"
            + "<Logger name=\"io.changelake.sink.task\" level=\"DEBUG\"/>"
            + "<Logger name=\"org.apache.kafka.connect.runtime.WorkerSinkTask\" level=\"DEBUG\"/>"
            + "<Root level=\"WARN\"><AppenderRef ref=\"out\"/></Root></Loggers></Configuration>");
    List<String> jvmArgs =
        new ArrayList<>(List.of("-Dlog4j2.configurationFile=" + logConfig.toUri()));
    runSinkAndSource("w43", System.getProperty("java.class.path"), jvmArgs, "4.3.0");
  }

  private static void runSinkAndSource(
      String name, String classPath, List<String> jvmArgs, String kafkaVersion) throws Exception {
    String topic = name + ".public.items";
    broker.kafka().createTopic(topic, 2);
    DebeziumEnvelopes.produceCreates(broker.bootstrapServers(), topic, "items", ROWS);
    int jmxPort = ConnectWorkerProcess.freePort();
    jvmArgs.addAll(jmxArgs(jmxPort));
    Path warehouse = dir.resolve(name + "-warehouse");

    try (ConnectWorkerProcess worker =
        ConnectWorkerProcess.start(
            dir.resolve(name), broker.bootstrapServers(), name, Map.of(), classPath, jvmArgs)) {
      assertThat(worker.get("/").path("version").asText())
          .as("the worker's Kafka version")
          .isEqualTo(kafkaVersion);
      assertThat(pluginVersions(worker))
          .as("versions the connectors report")
          .containsEntry(ChangelakeConnectors.SINK_CLASS, System.getProperty("changelake.version"))
          .containsEntry(
              ChangelakeConnectors.SOURCE_CLASS, System.getProperty("changelake.version"));

      Map<String, String> sink =
          ChangelakeConnectors.sink(warehouse, name + "\\.public\\..*", name);
      worker.putConnector(name + "-sink", sink);
      awaitState(
          worker,
          name + "-sink",
          () -> lakeIds(warehouse, name).size() == ROWS,
          () ->
              "lake ids "
                  + lakeIds(warehouse, name)
                  + "; "
                  + taskCounters(jmxPort, name + "-sink")
                  + "; the sink task's partitions, puts and rounds:\n"
                  + worker.linesOfLog(
                      80,
                      "Sink task 0 of " + name + "-sink:",
                      "WorkerSinkTask{id=" + name + "-sink-0} Partitions",
                      "WorkerSinkTask{id=" + name + "-sink-0} Assigned",
                      "WorkerSinkTask{id=" + name + "-sink-0} Rewind",
                      "WorkerSinkTask{id=" + name + "-sink-0} RetriableException",
                      "WorkerSinkTask{id=" + name + "-sink-0} Ignoring"));
      assertThat(lakeIds(warehouse, name)).hasSize(ROWS).contains(1L, (long) ROWS);

      Map<String, String> source =
          ChangelakeConnectors.source(warehouse, name + ".items", name + "-out");
      worker.putConnector(name + "-source", source);
      String outTopic = name + "-out." + name + ".items";
      awaitState(
          worker,
          name + "-source",
          () -> publishedIds(outTopic).size() == ROWS,
          () ->
              "published ids "
                  + publishedIds(outTopic)
                  + "; "
                  + taskCounters(jmxPort, name + "-source"));
      assertThat(publishedIds(outTopic)).hasSize(ROWS).contains(1L, (long) ROWS);

      try (JMXConnector jmx =
          JMXConnectorFactory.connect(
              new JMXServiceURL(
                  "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"))) {
        MBeanServerConnection server = jmx.getMBeanServerConnection();
        Awaitility.await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  assertThat(server.getAttribute(task(name + "-sink", ""), "records-in-total"))
                      .isEqualTo((long) ROWS);
                  assertThat(
                          server.getAttribute(
                              task(name + "-sink", ",table=" + name + ".items"),
                              "table-rows-written-total"))
                      .isEqualTo((long) ROWS);
                  assertThat(
                          server.getAttribute(
                              task(name + "-source", ",table=" + name + ".items"),
                              "table-records-out-total"))
                      .isEqualTo((long) ROWS);
                  // the sensors (windowed rate/avg/max) register on both kinds of worker; their
                  // values depend on when within the window the records came, so only their
                  // presence is asserted
                  assertThat(server.getAttribute(task(name + "-sink", ""), "records-in-rate"))
                      .isInstanceOf(Double.class);
                  assertThat(
                          server.getAttribute(
                              task(name + "-sink", ",table=" + name + ".items"),
                              "table-commit-duration-ms-max"))
                      .isInstanceOf(Double.class);
                  assertThat(
                          server.getAttribute(
                              task(name + "-source", ",table=" + name + ".items"),
                              "table-records-out-rate"))
                      .isInstanceOf(Double.class);
                });
        assertMetricsAreTheDocumentedOnes(server, name);
      }
    }
  }

  /**
   * The metrics the sink's and the source's tasks register on this worker are exactly those their
   * READMEs document: a documented one missing, or one registered but undocumented, fails. The
   * compaction metrics appear with the compactor's first round (every 5 s here).
   */
  private static void assertMetricsAreTheDocumentedOnes(MBeanServerConnection server, String name)
      throws Exception {
    Set<String> sinkDocs = DocumentedMetrics.documented(DocumentedMetrics.readme("connect-sink"));
    Set<String> sourceDocs =
        DocumentedMetrics.documented(DocumentedMetrics.readme("connect-source"));
    try {
      Awaitility.await()
          .atMost(WAIT)
          .until(() -> DocumentedMetrics.registered(server, name + "-sink").equals(sinkDocs));
    } catch (ConditionTimeoutException e) {
      // say which names differ, in both directions
      Set<String> sink = DocumentedMetrics.registered(server, name + "-sink");
      assertThat(sink)
          .as("sink metrics registered on the worker vs. connect-sink/README.md's metric tables")
          .containsAll(sinkDocs);
      assertThat(sinkDocs).as("sink metrics documented").containsAll(sink);
    }
    Set<String> source = DocumentedMetrics.registered(server, name + "-source");
    assertThat(source)
        .as("source metrics registered on the worker vs. connect-source/README.md's tables")
        .containsAll(sourceDocs);
    assertThat(sourceDocs).as("source metrics documented").containsAll(source);

    // a few values a user reads: the envelopes' source.ts_ms is 1_764_500_000_000 + id
    String table = ",table=" + name + ".items";
    long before = System.currentTimeMillis();
    long freshness = (Long) server.getAttribute(task(name + "-sink", table), "table-freshness-ms");
    long after = System.currentTimeMillis();
    long newest = 1_764_500_000_000L + ROWS;
    assertThat(freshness).isBetween(before - newest, after - newest);
    assertThat((Long) server.getAttribute(task(name + "-sink", ""), "freshness-ms-max"))
        .isGreaterThanOrEqualTo(freshness);
    assertThat((Long) server.getAttribute(task(name + "-sink", table), "table-bytes-written-total"))
        .isPositive();
    // the source published the table in one snapshot or more
    assertThat(
            (Long) server.getAttribute(task(name + "-source", table), "table-transactions-total"))
        .isPositive();
  }

  private static List<String> jmxArgs(int port) {
    return List.of(
        "-Dcom.sun.management.jmxremote.port=" + port,
        "-Dcom.sun.management.jmxremote.rmi.port=" + port,
        "-Dcom.sun.management.jmxremote.host=127.0.0.1",
        "-Djava.rmi.server.hostname=127.0.0.1",
        "-Dcom.sun.management.jmxremote.authenticate=false",
        "-Dcom.sun.management.jmxremote.ssl=false");
  }

  private static ObjectName task(String connector, String moreTags) throws Exception {
    return new ObjectName(
        "kafka.connect:type=plugins,connector=" + connector + ",task=0" + moreTags);
  }

  /** Connector class -> the version the worker reports for it ({@code GET /connector-plugins}). */
  private static Map<String, String> pluginVersions(ConnectWorkerProcess worker) {
    Map<String, String> versions = new HashMap<>();
    for (JsonNode plugin : worker.get("/connector-plugins")) {
      versions.put(plugin.path("class").asText(), plugin.path("version").asText());
    }
    return versions;
  }

  /** Waits for {@code done}, failing at once with the status when the connector or a task fails. */
  /**
   * Connect's own record counters of task 0 of {@code connector} next to the plugin's, to tell a
   * consumer that stopped delivering from records delivered but not written; never throws.
   */
  private static String taskCounters(int jmxPort, String connector) {
    try (JMXConnector jmx =
        JMXConnectorFactory.connect(
            new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"))) {
      MBeanServerConnection server = jmx.getMBeanServerConnection();
      StringBuilder out = new StringBuilder("task counters:");
      for (ObjectName name :
          server.queryNames(
              new ObjectName("kafka.connect:connector=" + connector + ",task=0,*"), null)) {
        for (var attribute : server.getMBeanInfo(name).getAttributes()) {
          if (attribute.getName().endsWith("-total") || attribute.getName().contains("offset")) {
            out.append(' ')
                .append(name.getKeyProperty("type"))
                .append('/')
                .append(attribute.getName())
                .append('=')
                .append(server.getAttribute(name, attribute.getName()));
          }
        }
      }
      return out.toString();
    } catch (Exception e) {
      return "task counters unavailable: " + e;
    }
  }

  private static void awaitState(
      ConnectWorkerProcess worker,
      String connector,
      Callable<Boolean> done,
      Callable<String> progress) {
    try {
      Awaitility.await()
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                JsonNode status = worker.status(connector);
                if (status != null && status.toString().contains("\"FAILED\"")) {
                  throw new AssertionError(
                      connector
                          + " failed: "
                          + status.toPrettyString()
                          + "\n"
                          + worker.tailOfLog());
                }
                return done.call();
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          connector
              + " did not get there in "
              + WAIT
              + "; status "
              + worker.status(connector)
              + "; "
              + describe(progress)
              + "; logs "
              + worker.logs()
              + "\n"
              + worker.diagnosis(),
          e);
    }
  }

  private static String describe(Callable<String> progress) {
    try {
      return progress.call();
    } catch (Exception e) {
      return "progress unavailable: " + e;
    }
  }

  private static Set<Long> lakeIds(Path warehouse, String database) {
    Set<Long> ids = new TreeSet<>();
    try {
      for (Map<String, Object> row :
          LakeTableReader.read(LakeTableReader.fileWarehouse(warehouse), database, "items")) {
        ids.add(((Number) row.get("id")).longValue());
      }
    } catch (LakeTableReader.TableMissing e) {
      // not created yet
    }
    return ids;
  }

  private static Set<Long> publishedIds(String topic) throws Exception {
    Set<Long> ids = new TreeSet<>();
    try (Admin admin = broker.kafka().createAdminClient()) {
      if (!admin.listTopics().names().get().contains(topic)) {
        return ids;
      }
    }
    for (var record : ConnectPlatform.readAll(broker.bootstrapServers(), topic, true)) {
      if (record.value() != null) {
        JsonNode after = JSON.readTree(record.value()).path("payload").path("after");
        if (after.has("id")) {
          ids.add(after.path("id").asLong());
        }
      }
    }
    return ids;
  }
}
