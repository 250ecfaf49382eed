package io.changelake.e2e.connect;

import io.changelake.testkit.connect.ConnectPlatform;
import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Per-table metrics the sink's tasks publish, read from JMX as a user's monitoring would: the
 * workers of {@link ConnectPlatform} run in the test's JVM, so their {@code
 * kafka.connect:type=plugins,connector=<c>,task=<n>,table=<t>} beans are in its platform MBean
 * server.
 */
public final class TaskMetrics {
  private TaskMetrics() {}

  /**
   * The value of {@code attribute} (e.g. {@code table-commits-total}) that task {@code task} of
   * {@code connector} publishes for {@code table} ({@code database.table}); fails when the task
   * publishes none for the table.
   */
  public static long tableMetric(String connector, int task, String table, String attribute)
      throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names =
        server.queryNames(
            new ObjectName(
                "kafka.connect:type=plugins,connector=" + connector + ",task=" + task + ",*"),
            null);
    for (ObjectName name : names) {
      if (table.equals(name.getKeyProperty("table"))) {
        return ((Number) server.getAttribute(name, attribute)).longValue();
      }
    }
    throw new AssertionError(
        "task " + task + " of " + connector + " publishes no metrics for " + table + ": " + names);
  }

  /**
   * Connect's count of records task {@code task} of sink {@code connector} read from Kafka since it
   * started ({@code sink-record-read-total} of {@code sink-task-metrics}).
   */
  public static long sinkRecordsRead(String connector, int task) throws Exception {
    ObjectName name =
        new ObjectName(
            "kafka.connect:type=sink-task-metrics,connector=" + connector + ",task=" + task);
    return ((Number)
            ManagementFactory.getPlatformMBeanServer().getAttribute(name, "sink-record-read-total"))
        .longValue();
  }
}
