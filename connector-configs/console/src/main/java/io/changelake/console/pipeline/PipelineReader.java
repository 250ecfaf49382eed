package io.changelake.console.pipeline;

import io.changelake.console.connector.ConnectorReader;
import io.changelake.console.connector.ConnectorRole;
import io.changelake.console.connector.ConnectorView;
import io.changelake.console.table.TableNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;

/**
 * Builds the pipeline graphs: connectors from the Connect REST API (their topics from KIP-558's
 * topic tracking), lake tables linked to the topics their snapshots hold offsets of, and lag from
 * Kafka.
 */
public final class PipelineReader implements AutoCloseable {
  private final ConnectorReader connectors;
  private final Catalog catalog;
  private final Optional<ConsumerLag> lag;
  private final LineageCache cache;

  public PipelineReader(
      ConnectorReader connectors, Catalog catalog, Optional<String> bootstrapServers) {
    this.connectors = connectors;
    this.catalog = catalog;
    this.lag = bootstrapServers.map(ConsumerLag::new);
    this.cache = new LineageCache(catalog);
  }

  public PipelineView read() {
    long now = System.currentTimeMillis();
    Graph graph = new Graph();
    List<String> problems = new ArrayList<>();
    Map<String, TableLineage> lineages = new HashMap<>();
    for (String name : connectors.names()) {
      Map<String, String> config;
      ConnectorView view;
      try {
        config = connectors.rawConfig(name);
        view = connectors.read(name);
      } catch (RuntimeException e) {
        // deleted between the listing and the read, or not started yet
        problems.add("Connector " + name + ": " + e.getMessage());
        continue;
      }
      ConnectorRole role = ConnectorRole.of(config, view.type());
      String node = "connector:" + name;
      List<String> details = new ArrayList<>();
      Long sinkLag = null;
      boolean sink = role == ConnectorRole.LAKE_SINK || role == ConnectorRole.SINK;
      Set<String> topics = new LinkedHashSet<>(view.topics());
      if (sink) {
        configuredTopics(config).forEach(topics::add);
        if (lag.isPresent()) {
          try {
            Map<String, Long> perTopic = lag.get().lagPerTopic(ConsumerLag.groupOf(name, config));
            sinkLag = perTopic.values().stream().mapToLong(Long::longValue).sum();
            perTopic.forEach((topic, records) -> details.add("lag " + topic + ": " + records));
          } catch (RuntimeException e) {
            problems.add(e.getMessage());
          }
        }
        topics.forEach(topic -> graph.edge("topic:" + topic, node));
      } else {
        topics.forEach(topic -> graph.edge(node, "topic:" + topic));
      }
      Long behind = null;
      if (role == ConnectorRole.LAKE_SINK) {
        String database = config.getOrDefault("route.database", "default");
        List<String> tables = tablesOf(database, problems);
        lineages.putAll(
            cache.lineages(
                tables.stream()
                    .map(table -> Identifier.create(database, table))
                    .filter(id -> !lineages.containsKey(id.getFullName()))
                    .toList(),
                problems));
        for (String table : tables) {
          TableLineage lineage = lineages.get(database + "." + table);
          if (lineage != null && lineage.topics().stream().anyMatch(topics::contains)) {
            graph.edge(node, "table:" + database + "." + table);
          }
        }
      } else if (role == ConnectorRole.LAKE_SOURCE) {
        for (String table : list(config.get("tables"))) {
          graph.edge("table:" + table, node);
          behind = sum(behind, snapshotsBehind(table, name, config, lineages, problems));
        }
      }
      graph.nodes.put(
          node,
          new PipelineView.Node(
              node,
              "connector",
              name,
              role.label(),
              view.state(),
              view.tasks(),
              sinkLag,
              null,
              behind,
              details));
    }
    for (String id : graph.referenced()) {
      if (id.startsWith("topic:")) {
        graph.nodes.put(id, plain(id, "topic", id.substring("topic:".length()), List.of(), null));
      } else if (id.startsWith("table:")) {
        String full = id.substring("table:".length());
        TableLineage lineage = lineages.get(full);
        if (lineage == null) {
          lineage = lineage(lineages, TableNames.database(full), TableNames.table(full), problems);
        }
        List<String> details = new ArrayList<>();
        Long freshness = null;
        if (lineage != null && lineage.latestSnapshot() != null) {
          details.add("snapshot " + lineage.latestSnapshot());
          if (lineage.newestSourceTimestamp() != null) {
            freshness = Math.max(0, now - lineage.newestSourceTimestamp());
          }
        }
        graph.nodes.put(id, plain(id, "table", full, details, freshness));
      }
    }
    cache.retainOnly(lineages.keySet());
    return new PipelineView(now, graph.components(), problems);
  }

  private static PipelineView.Node plain(
      String id, String kind, String label, List<String> details, Long freshness) {
    return new PipelineView.Node(
        id, kind, label, null, null, List.of(), null, freshness, null, details);
  }

  private Long snapshotsBehind(
      String table,
      String connector,
      Map<String, String> config,
      Map<String, TableLineage> lineages,
      List<String> problems) {
    // the source's consumer ids start with consumer.id, else with its sanitized name
    String base =
        Optional.ofNullable(config.get("consumer.id"))
            .orElse(connector.replaceAll("[^A-Za-z0-9_.-]", "_"));
    try {
      Identifier id = Identifier.fromString(table);
      TableLineage lineage = lineage(lineages, id.getDatabaseName(), id.getObjectName(), problems);
      if (lineage == null || lineage.latestSnapshot() == null) {
        return null;
      }
      Long behind = null;
      for (var consumer : ConsumerSnapshots.read(cache.table(id))) {
        if (consumer.getKey().startsWith(base)) {
          long b = Math.max(0, lineage.latestSnapshot() - consumer.getValue() + 1);
          behind = behind == null ? b : Math.max(behind, b);
        }
      }
      return behind;
    } catch (RuntimeException e) {
      problems.add("Table " + table + ": " + e.getMessage());
      return null;
    }
  }

  private List<String> tablesOf(String database, List<String> problems) {
    try {
      return catalog.listTables(database);
    } catch (Catalog.DatabaseNotExistException e) {
      // the sink creates it with its first table
      return List.of();
    } catch (RuntimeException e) {
      problems.add("Lake database " + database + ": " + e.getMessage());
      return List.of();
    }
  }

  private TableLineage lineage(
      Map<String, TableLineage> read, String database, String table, List<String> problems) {
    String key = database + "." + table;
    if (!read.containsKey(key)) {
      // a changelog source configured before its table exists maps to null: shown without details
      read.putAll(cache.lineages(List.of(Identifier.create(database, table)), problems));
    }
    return read.get(key);
  }

  private static List<String> configuredTopics(Map<String, String> config) {
    return list(config.get("topics"));
  }

  private static List<String> list(String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private static Long sum(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : a + b;
  }

  @Override
  public void close() {
    cache.close();
    lag.ifPresent(ConsumerLag::close);
  }

  /** Nodes and edges, split into connected components. */
  private static final class Graph {
    final Map<String, PipelineView.Node> nodes = new LinkedHashMap<>();
    final Set<PipelineView.Edge> edges = new LinkedHashSet<>();

    void edge(String from, String to) {
      edges.add(new PipelineView.Edge(from, to));
    }

    Set<String> referenced() {
      Set<String> ids = new LinkedHashSet<>();
      for (PipelineView.Edge e : edges) {
        ids.add(e.from());
        ids.add(e.to());
      }
      ids.removeAll(nodes.keySet());
      return ids;
    }

    List<PipelineView.Pipeline> components() {
      Map<String, String> parent = new HashMap<>();
      nodes.keySet().forEach(id -> parent.put(id, id));
      for (PipelineView.Edge e : edges) {
        parent.put(root(parent, e.from()), root(parent, e.to()));
      }
      Map<String, List<PipelineView.Node>> byRoot = new LinkedHashMap<>();
      nodes
          .values()
          .forEach(
              n -> byRoot.computeIfAbsent(root(parent, n.id()), r -> new ArrayList<>()).add(n));
      List<PipelineView.Pipeline> pipelines = new ArrayList<>();
      for (List<PipelineView.Node> members : byRoot.values()) {
        Set<String> ids = new LinkedHashSet<>();
        members.forEach(n -> ids.add(n.id()));
        pipelines.add(
            new PipelineView.Pipeline(
                members, edges.stream().filter(e -> ids.contains(e.from())).toList()));
      }
      pipelines.sort(
          Comparator.comparingInt((PipelineView.Pipeline p) -> -p.nodes().size())
              .thenComparing(p -> p.nodes().get(0).id()));
      return pipelines;
    }

    private static String root(Map<String, String> parent, String id) {
      String r = id;
      while (!parent.getOrDefault(r, r).equals(r)) {
        r = parent.get(r);
      }
      return r;
    }
  }
}
