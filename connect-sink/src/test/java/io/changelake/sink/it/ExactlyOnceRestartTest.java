package io.changelake.sink.it;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.data.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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

  // flattened rows without add.fields carry no source position: replays are told apart by offset
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED"})
  void restartsWithLostConnectOffsetsNeitherDoubleNorLoseARecord(InputShape shape)
      throws Exception {
    String table =
        shape == InputShape.ENVELOPE ? "payments" : "payments_" + shape.name().toLowerCase();
    DebeziumTable payments =
        DebeziumTable.builder(table)
            .firstLsn(1000)
            .key("account", Schema.INT32_SCHEMA)
            .column("amount", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    fixture.connect.kafka().createTopic(payments.topic(), 1);
    String connector =
        shape == InputShape.ENVELOPE ? "restart" : "restart-" + shape.name().toLowerCase();
    fixture.startConnector(
        connector,
        fixture.sinkConfig(
            shape,
            payments.topic(),
            "route.table.format",
            table,
            "table.merge-engine",
            "aggregation",
            "table.option.fields.amount.aggregate-function",
            "sum"));

    sendOnePerAccount(shape, payments, 5);
    sendOnePerAccount(shape, payments, 5);
    fixture.awaitRows(table, sums(5, 2L));

    // Connect forgets its offsets and replays the whole topic: the table must skip it all
    fixture.connect.stopConnector(connector);
    fixture.connect.resetConnectorOffsets(connector);
    fixture.connect.resumeConnector(connector);
    sendOnePerAccount(shape, payments, 5);
    fixture.awaitRows(table, sums(5, 3L));
    assertThat(taskMetric(connector, null, "records-skipped-total")).isGreaterThanOrEqualTo(10);
    assertThat(taskMetric(connector, "lake." + table, "table-rows-written-total"))
        .isGreaterThanOrEqualTo(5);
    assertThat(taskMetric(connector, "lake." + table, "table-last-snapshot-id")).isPositive();

    // a plain restart of connector and task, with more records after it
    fixture.connect.restartConnectorAndTasks(connector, false, true, false);
    sendOnePerAccount(shape, payments, 5);
    fixture.awaitRows(table, sums(5, 4L));
    fixture.connect.deleteConnector(connector);
  }

  private static void sendOnePerAccount(InputShape shape, DebeziumTable payments, int accounts) {
    for (int account = 1; account <= accounts; account++) {
      fixture.produce(shape, payments.create(payments.row(account, 1L)));
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
