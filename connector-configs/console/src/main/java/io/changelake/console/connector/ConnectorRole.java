package io.changelake.console.connector;

import java.util.Map;

/** What a connector does in a pipeline, told by its class. */
public enum ConnectorRole {
  CDC_SOURCE("change capture"),
  LAKE_SINK("Changelake sink"),
  LAKE_SOURCE("Changelake changelog source"),
  SINK("sink"),
  SOURCE("source");

  public static final String LAKE_SINK_CLASS = "io.changelake.sink.ChangelakeSinkConnector";
  public static final String LAKE_SOURCE_CLASS = "io.changelake.source.ChangelakeSourceConnector";

  private final String label;

  ConnectorRole(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** The role of a connector with this config and Connect type ({@code source}/{@code sink}). */
  public static ConnectorRole of(Map<String, String> config, String type) {
    String connectorClass = config.getOrDefault("connector.class", "");
    if (connectorClass.equals(LAKE_SINK_CLASS)) {
      return LAKE_SINK;
    }
    if (connectorClass.equals(LAKE_SOURCE_CLASS)) {
      return LAKE_SOURCE;
    }
    boolean sink =
        "sink".equals(type) || config.containsKey("topics") || config.containsKey("topics.regex");
    if (!sink && connectorClass.startsWith("io.debezium.connector.")) {
      return CDC_SOURCE;
    }
    return sink ? SINK : SOURCE;
  }
}
