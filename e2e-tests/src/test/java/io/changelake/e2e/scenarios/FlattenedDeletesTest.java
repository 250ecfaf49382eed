package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectPlatform;
import io.changelake.e2e.connect.DebeziumPostgres;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Flattened input as most Debezium users run it: {@code ExtractNewRecordState} at its defaults, so
 * a delete reaches the sink only as a tombstone (key, null value, no source block, no position), on
 * a topic with 4 partitions. The sink is stopped and started again (its tasks close, commit and
 * start afresh) while deletes are waiting in the topic, so a tombstone is the first record of its
 * partition that the new task sees. Every delete must be applied and ordered against the other
 * versions of its key: the table ends equal to the database.
 *
 * <p>Three ways of getting there: the transform in the sink's own {@code transforms} with {@code
 * input.format=flattened}, the same with {@code input.format=auto}, and the transform on the
 * Debezium source connector (the tombstones are in the topic, no sink setting can change them). A
 * truncate in PostgreSQL empties the table in flattened mode too: {@code ExtractNewRecordState}
 * drops truncate events, so the sink's transform skips them with Changelake's {@code IsTruncate}
 * predicate and the sink reads the truncate envelope itself.
 */
class FlattenedDeletesTest extends PipelineTestBase {
  private static final String UNWRAP = "io.debezium.transforms.ExtractNewRecordState";

  @Test
  void sinkSideUnwrapAtDefaultsAppliesTombstoneDeletesAfterEveryRestart() {
    String db = "fd1";
    runScenario(db, Map.of(), sinkSideUnwrap("flattened", false), 2);
  }

  @Test
  void autoInputFormatAppliesTombstoneDeletesOfAFlattenedStream() {
    String db = "fd2";
    runScenario(db, Map.of(), sinkSideUnwrap("auto", false), 1);
  }

  @Test
  void tombstonesWrittenByAFlatteningSourceConnectorAreAppliedAfterRestarts() {
    String db = "fd3";
    Map<String, String> source = new HashMap<>();
    source.put("transforms", "unwrap");
    source.put("transforms.unwrap.type", UNWRAP);
    runScenario(db, source, Map.of("input.format", "flattened"), 2);
  }

  @Test
  void aTruncateEmptiesTheTableInFlattenedMode() {
    String db = "fd4";
    createItems(db);
    startPipeline(db, Map.of(), sinkSideUnwrap("flattened", true), 1);
    awaitLakeEqualsDatabase(db, "items");

    pg.execute(db, "TRUNCATE items", "INSERT INTO items VALUES (1001, 'after truncate', 1)");
    awaitLakeEqualsDatabase(db, "items");
    assertThat(lakeTable(db, "items").read()).hasSize(1);
  }

  /**
   * Inserts, then twice: deletes and updates while the sink is stopped, start it, catch up. The
   * first records each new task sees are tombstones.
   */
  private static void runScenario(
      String db, Map<String, String> sourceOverrides, Map<String, String> sink, int sinkTasks) {
    createItems(db);
    startPipeline(db, sourceOverrides, sink, sinkTasks);
    awaitLakeEqualsDatabase(db, "items");

    restartWhileChangesWait(
        db,
        sinkTasks,
        "DELETE FROM items WHERE id % 3 = 0",
        "UPDATE items SET v = v + 1 WHERE id % 5 = 0",
        "INSERT INTO items VALUES (3, 'back', 7)");
    awaitLakeEqualsDatabase(db, "items");

    restartWhileChangesWait(
        db,
        sinkTasks,
        "DELETE FROM items WHERE id % 4 = 1",
        "DELETE FROM items WHERE id = 3",
        "UPDATE items SET name = 'renamed' WHERE id % 7 = 0");
    awaitLakeEqualsDatabase(db, "items");
  }

  private static void createItems(String db) {
    createDatabase(db);
    pg.execute(
        db,
        "CREATE TABLE items (id int PRIMARY KEY, name text, v int)",
        "INSERT INTO items SELECT i, 'item ' || i, i FROM generate_series(1, 120) i");
  }

  private static Map<String, String> sinkSideUnwrap(String inputFormat, boolean passTruncates) {
    Map<String, String> sink = new HashMap<>();
    sink.put("input.format", inputFormat);
    sink.put("transforms", "unwrap");
    sink.put("transforms.unwrap.type", UNWRAP);
    if (!passTruncates) {
      return sink;
    }
    // ExtractNewRecordState drops truncates; the predicate lets them pass as envelopes
    sink.put("transforms.unwrap.predicate", "truncate");
    sink.put("transforms.unwrap.negate", "true");
    sink.put("predicates", "truncate");
    sink.put("predicates.truncate.type", "io.changelake.sink.transforms.IsTruncate");
    return sink;
  }

  private static void startPipeline(
      String db,
      Map<String, String> sourceOverrides,
      Map<String, String> sinkOverrides,
      int tasks) {
    Map<String, String> source = new HashMap<>(DebeziumPostgres.config(pg, db, db, "public.items"));
    source.put("topic.creation.default.partitions", "4");
    source.putAll(sourceOverrides);
    connect.deploy(db + "-pg", source, 1);
    Map<String, String> sink =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, db + "\\..*", db));
    sink.put("tasks.max", String.valueOf(tasks));
    // flattened records carry no source block: route by topic name
    sink.put("route.regex.rules", db + "\\.public\\.(.*)=>$1");
    sink.putAll(sinkOverrides);
    connect.deploy(db + "-sink", sink, tasks);
  }

  /**
   * Stops the sink (its tasks commit and close), runs {@code statements}, waits until Debezium has
   * published them, and resumes the sink: its new tasks start at the tombstones.
   */
  private static void restartWhileChangesWait(String db, int tasks, String... statements) {
    String sink = db + "-sink";
    String topic = db + ".public.items";
    connect.cluster().stopConnector(sink);
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> "STOPPED".equals(state(sink)));
    int before = ConnectPlatform.readAll(connect.bootstrapServers(), topic, false).size();
    long changed = 0;
    for (String statement : statements) {
      changed += pg.update(db, statement);
    }
    long expected = before + changed;
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                ConnectPlatform.readAll(connect.bootstrapServers(), topic, false).size()
                    >= expected);
    connect.cluster().resumeConnector(sink);
    connect.awaitRunning(sink, tasks);
  }

  private static String state(String connector) {
    ConnectorStateInfo info = connect.cluster().connectorStatus(connector);
    return info.connector().state();
  }
}
