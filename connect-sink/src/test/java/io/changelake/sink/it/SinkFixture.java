package io.changelake.sink.it;

import static org.awaitility.Awaitility.await;

import io.changelake.lsm.table.InternalColumns;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.sink.testing.InputShapes;
import io.changelake.testkit.Change;
import io.changelake.testkit.InputShape;
import io.changelake.testkit.connect.ConnectPlatform;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.RowType;

/** One in-process broker and Connect worker per test class, plus reading the lake. */
final class SinkFixture implements AutoCloseable {
  static final String CONNECTOR_CLASS = "io.changelake.sink.ChangelakeSinkConnector";
  static final String DATABASE = "lake";

  private final ConnectPlatform platform;
  final EmbeddedConnectCluster connect;
  final Path warehouse;

  SinkFixture(String name, Path warehouse) {
    this.warehouse = warehouse;
    platform =
        ConnectPlatform.builder(name)
            .jsonConverters()
            // Connect commits offsets rarely: the sink's own commits must make restarts exact
            .offsetFlushIntervalMs(600_000)
            // topics.regex picks up new topics at the consumer's metadata refresh
            .workerProp("consumer.metadata.max.age.ms", "500")
            .brokerProp("offsets.topic.replication.factor", "1")
            .start();
    connect = platform.cluster();
  }

  /**
   * A sink config reading records of {@code shape}, else as {@link #sinkConfig(String, String...)}.
   */
  Map<String, String> sinkConfig(InputShape shape, String topics, String... keyValues) {
    Map<String, String> config = sinkConfig(topics, keyValues);
    config.putAll(InputShapes.sinkConfig(shape));
    return config;
  }

  /**
   * A sink config reading records of {@code shape} from {@code topics} into table {@code table},
   * routed as {@link InputShapes#route} says.
   */
  Map<String, String> routedConfig(
      InputShape shape, String table, String topics, String... keyValues) {
    Map<String, String> config = sinkConfig(shape, topics, keyValues);
    config.putAll(InputShapes.route(shape, table));
    return config;
  }

  /** A sink config with fast commits into the test warehouse. */
  Map<String, String> sinkConfig(String topics, String... keyValues) {
    Map<String, String> config = new HashMap<>();
    config.put("connector.class", CONNECTOR_CLASS);
    config.put("tasks.max", "1");
    config.put("topics", topics);
    config.put("paimon.warehouse", warehouse.toUri().toString());
    config.put("route.database", DATABASE);
    config.put("commit.interval.ms", "300");
    config.put("compaction.interval.ms", "0");
    config.put("table.buckets", "1");
    config.put("writer.spill.dir", warehouse.resolveSibling("spill").toString());
    for (int i = 0; i < keyValues.length; i += 2) {
      config.put(keyValues[i], keyValues[i + 1]);
    }
    return config;
  }

  void startConnector(String name, Map<String, String> config) {
    connect.configureConnector(name, config);
    platform.awaitRunningExactly(name, 1);
  }

  /**
   * Writes a change to its topic as JSON bytes in {@code shape} (nothing when the shape drops it,
   * as ExtractNewRecordState drops Debezium's tombstones).
   */
  void produce(InputShape shape, Change change) {
    change
        .json(shape)
        .ifPresent(
            r ->
                connect
                    .kafka()
                    .produce(
                        r.topic(),
                        r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8),
                        r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8)));
  }

  /** Writes raw text to a topic (bad input). */
  void produce(String topic, Struct key, String value) {
    String keyJson =
        new String(KEYS.fromConnectData(topic, key.schema(), key), StandardCharsets.UTF_8);
    connect.kafka().produce(topic, keyJson, value);
  }

  private static final JsonConverter KEYS = new JsonConverter();

  static {
    KEYS.configure(Map.of("schemas.enable", "true"), true);
  }

  /**
   * The user-visible rows of a table (internal columns left out), sorted; empty while the table
   * does not exist.
   */
  List<List<Object>> rows(String table) {
    try (Catalog catalog = TestTables.localCatalog(warehouse)) {
      Table t = catalog.getTable(Identifier.create(DATABASE, table));
      RowType type = t.rowType();
      List<List<Object>> rows = new ArrayList<>();
      for (List<Object> row : LakeRows.read(t)) {
        List<Object> visible = new ArrayList<>();
        for (int i = 0; i < row.size(); i++) {
          if (!InternalColumns.isInternal(type.getFieldNames().get(i))) {
            visible.add(row.get(i));
          }
        }
        rows.add(visible);
      }
      return rows;
    } catch (Catalog.TableNotExistException e) {
      return List.of();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Column names of a table. */
  List<String> columns(String table) {
    try (Catalog catalog = TestTables.localCatalog(warehouse)) {
      return catalog.getTable(Identifier.create(DATABASE, table)).rowType().getFieldNames();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The commit users of every snapshot of a table still retained. */
  java.util.Set<String> commitUsers(String table) {
    try (Catalog catalog = TestTables.localCatalog(warehouse)) {
      org.apache.paimon.table.FileStoreTable t =
          (org.apache.paimon.table.FileStoreTable)
              catalog.getTable(Identifier.create(DATABASE, table));
      java.util.Set<String> users = new java.util.TreeSet<>();
      java.util.Iterator<org.apache.paimon.Snapshot> snapshots = t.snapshotManager().snapshots();
      snapshots.forEachRemaining(s -> users.add(s.commitUser()));
      return users;
    } catch (Catalog.TableNotExistException e) {
      return java.util.Set.of();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the table holds exactly {@code expected} (sorted as {@link #rows} sorts). */
  void awaitRows(String table, List<List<Object>> expected) {
    List<List<Object>> sorted = new ArrayList<>(expected);
    sorted.sort(java.util.Comparator.comparing(Object::toString));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> org.assertj.core.api.Assertions.assertThat(rows(table)).isEqualTo(sorted));
  }

  /** Waits until the connector's task failed and returns its trace. */
  String awaitTaskFailure(String connector) {
    String[] trace = new String[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              ConnectorStateInfo status = connect.connectorStatus(connector);
              if (status.tasks().isEmpty() || !"FAILED".equals(status.tasks().get(0).state())) {
                return false;
              }
              trace[0] = status.tasks().get(0).trace();
              return true;
            });
    return trace[0];
  }

  @Override
  public void close() {
    platform.close();
  }
}
