package io.changelake.sink.it;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replays after restarts must not apply a record twice. A sum-aggregating table makes a doubled
 * record visible (a deduplicate table would hide it), so it is the witness here.
 */
class ExactlyOnceRestartTest {
  @TempDir static Path tmp;
  static SinkFixture fixture;

  @BeforeAll
  static void start() {
    fixture = new SinkFixture("changelake-sink-restart", tmp.resolve("warehouse"));
  }

  @AfterAll
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  void restartsWithLostConnectOffsetsNeitherDoubleNorLoseARecord() throws Exception {
    fixture.connect.kafka().createTopic("server1.public.payments", 1);
    DebeziumEvents payments =
        new DebeziumEvents(
            "server1.public.payments",
            "payments",
            1000,
            "account",
            Schema.INT32_SCHEMA,
            "amount",
            Schema.OPTIONAL_INT64_SCHEMA);
    String connector = "restart";
    fixture.startConnector(
        connector,
        fixture.sinkConfig(
            payments.topic,
            "route.table.format",
            "payments",
            "table.merge-engine",
            "aggregation",
            "table.option.fields.amount.aggregate-function",
            "sum"));

    sendOnePerAccount(payments, 5);
    sendOnePerAccount(payments, 5);
    fixture.awaitRows("payments", sums(5, 2L));

    // Connect forgets its offsets and replays the whole topic: the table must skip it all
    fixture.connect.stopConnector(connector);
    fixture.connect.resetConnectorOffsets(connector);
    fixture.connect.resumeConnector(connector);
    sendOnePerAccount(payments, 5);
    fixture.awaitRows("payments", sums(5, 3L));
    assertThat(taskMetric(connector, null, "records-skipped-total")).isGreaterThanOrEqualTo(10);
    assertThat(taskMetric(connector, "lake.payments", "table-rows-written-total"))
        .isGreaterThanOrEqualTo(5);
    assertThat(taskMetric(connector, "lake.payments", "table-last-snapshot-id")).isPositive();

    // a plain restart of connector and task, with more records after it
    fixture.connect.restartConnectorAndTasks(connector, false, true, false);
    sendOnePerAccount(payments, 5);
    fixture.awaitRows("payments", sums(5, 4L));
    fixture.connect.deleteConnector(connector);
  }

  private static void sendOnePerAccount(DebeziumEvents payments, int accounts) {
    for (int account = 1; account <= accounts; account++) {
      Struct payment = payments.row(account, 1L);
      fixture.produce(payments, payments.keyOf(payment), payments.create(payment));
    }
  }

  private static List<List<Object>> sums(int accounts, long sum) {
    List<List<Object>> rows = new ArrayList<>();
    for (int account = 1; account <= accounts; account++) {
      rows.add(values(account, sum));
    }
    return rows;
  }

  /**
   * A metric of the connector's task as the worker publishes it in JMX; {@code table} null for
   * task-level metrics.
   */
  private static long taskMetric(String connector, String table, String metric) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    long[] value = new long[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Set<ObjectName> names =
                  server.queryNames(
                      new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"),
                      null);
              for (ObjectName name : names) {
                String tag = name.getKeyProperty("table");
                // task-level metrics carry neither a table nor a dependency tag
                boolean taskLevel = tag == null && name.getKeyProperty("dependency") == null;
                if (table == null ? taskLevel : table.equals(tag)) {
                  value[0] = ((Number) server.getAttribute(name, metric)).longValue();
                  return true;
                }
              }
              return false;
            });
    return value[0];
  }
}
