package io.changelake.console.pipeline;

import io.changelake.console.connector.ConnectorView;
import java.util.List;

/**
 * The pipelines page: each pipeline is one connected graph of connectors, topics and lake tables.
 *
 * @param generatedAt when this view was read (epoch millis)
 * @param pipelines the graphs, largest first
 * @param problems what could not be read (a connector that vanished, Kafka unreachable), in words
 */
public record PipelineView(long generatedAt, List<Pipeline> pipelines, List<String> problems) {

  /** One connected graph. */
  public record Pipeline(List<Node> nodes, List<Edge> edges) {}

  /**
   * A connector, topic or table.
   *
   * @param id {@code connector:<name>}, {@code topic:<name>} or {@code table:<db>.<table>}
   * @param kind {@code connector}, {@code topic} or {@code table}
   * @param label what the node is called
   * @param role a connector's part (change capture, Changelake sink, ...); null for others
   * @param state a connector's state (RUNNING, FAILED, ...); null for others
   * @param tasks a connector's tasks with traces of failed ones (secrets masked)
   * @param lag a sink's consumer lag over all its topics, in records; null if unknown
   * @param freshnessMs a table's age: now minus the newest committed source timestamp
   * @param snapshotsBehind a changelog source's snapshots not yet published, over its tables
   * @param details more lines shown under the node
   */
  public record Node(
      String id,
      String kind,
      String label,
      String role,
      String state,
      List<ConnectorView.TaskView> tasks,
      Long lag,
      Long freshnessMs,
      Long snapshotsBehind,
      List<String> details) {}

  /** Data flows from {@code from} to {@code to}. */
  public record Edge(String from, String to) {}
}
