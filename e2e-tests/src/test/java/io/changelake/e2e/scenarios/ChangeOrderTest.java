package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import io.changelake.testkit.JsonRecord;
import io.changelake.testkit.connect.ConnectPlatform;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The order of changes on real services (connect-sink's README, "Order of changes").
 *
 * <p>Flattened input as most Debezium users run it: {@code ExtractNewRecordState} at its defaults,
 * so a delete reaches the sink only as a tombstone (key, null value, no source block, no position),
 * on a topic with 4 partitions. The sink is stopped and started again (its tasks close, commit and
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
 *
 * <p>A truncate followed by inserts, on 4 partitions read by 2 tasks that start together: rows
 * written after the truncate survive it whichever partition or task consumed them first. A topic
 * deleted and created again (its offsets start at 0 again) stops the sink with an error instead of
 * its records being skipped as already written.
 *
 * <p>A source whose log restarted lower (crafted PostgreSQL envelopes whose commit LSNs drop while
 * their source time goes on, as after a move to a new cluster) stops the sink, as envelopes and as
 * rows flattened with {@code add.fields}; the same changes sent again (as Debezium does after a
 * crash) do not. Concurrent transactions on a real PostgreSQL, whose change LSNs go back within a
 * partition, do not stop it either.
 */
class ChangeOrderTest extends PipelineTestBase {
  private static final String UNWRAP = "io.debezium.transforms.ExtractNewRecordState";
  private static final ObjectMapper JSON = new ObjectMapper();
  // what the flattening sinks below ask ExtractNewRecordState to keep: the stream check needs the
  // sequence (PostgreSQL's last commit LSN) and the source time
  private static final String ADD_FIELDS = "op,lsn,sequence,source.ts_ms";

  @Test
  void sinkSideUnwrapAppliesTombstoneDeletesAfterEveryRestart() {
    String db = "fd1";
    Map<String, String> sink = new HashMap<>(sinkSideUnwrap("flattened", false));
    // positions from the LSN: the tombstones still carry none
    sink.put("transforms.unwrap.add.fields", "lsn,source.ts_ms");
    runScenario(db, Map.of(), sink, 2);
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

  @Test
  void rowsWrittenAfterATruncateSurviveItOnEveryPartitionAndTask() {
    String db = "fd5";
    createItems(db);
    startPipeline(db, Map.of(), Map.of(), 2);
    awaitLakeEqualsDatabase(db, "items");

    // every record the tasks find waiting is after the truncate but one: the truncate itself,
    // on one of the 4 partitions (rows before it that another task commits after it are a
    // documented limit)
    restartWhileChangesWait(
        db,
        2,
        "TRUNCATE items",
        "INSERT INTO items SELECT i, 'after ' || i, i FROM generate_series(500, 599) i",
        "UPDATE items SET v = v * 10 WHERE id % 3 = 0");
    awaitLakeEqualsDatabase(db, "items");
    assertThat(lakeTable(db, "items").read()).hasSize(100);
  }

  @Test
  void aRecreatedTopicStopsTheSinkInsteadOfSkippingItsRecords() {
    String topic = "rc.public.items";
    String sink = "rc-sink";
    connect.createTopic(topic, 2);
    for (int id = 0; id < 10; id++) {
      produce(topic, id % 2, insert(id, "first", 1000 + id, null, 0));
    }
    Map<String, String> config = new HashMap<>(ChangelakeConnectors.sink(warehouse, topic, "rc"));
    config.remove("topics.regex");
    config.put("topics", topic);
    config.put("input.format", "envelope");
    connect.deploy(sink, config, 1);
    Awaitility.await()
        .atMost(CATCH_UP)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(lakeTable("rc", "items").read()).hasSize(10));

    connect.cluster().stopConnector(sink);
    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> "STOPPED".equals(state(sink)));
    connect.cluster().kafka().deleteTopic(topic);
    connect.createTopic(topic, 2);
    // the new topic's offsets start at 0 again: below what the table recorded
    produce(topic, 0, insert(0, "second", 5000, null, 0));
    connect.cluster().resumeConnector(sink);

    Awaitility.await()
        .atMost(CATCH_UP)
        .until(() -> connect.failure(sink) != null && connect.failure(sink).contains("re-created"));
    assertThat(connect.failure(sink))
        .contains(topic + "-0@0")
        .contains("rc.items")
        .contains("postgres_lsn 5000")
        .contains("postgres_lsn 1008");
    assertThat(lakeTable("rc", "items").read()).hasSize(10);
    connect.delete(sink);
  }

  @Test
  void aSourceLogThatRestartedLowerStopsTheSinkWhileAResendDoesNot() {
    String topic = "lr.public.items";
    connect.createTopic(topic, 2);
    for (int id = 0; id < 10; id++) {
      produce(topic, id, "first", 90_000 + 100L * id, 1_000 + id);
    }
    // two sinks on the topic: envelopes, and rows flattened with add.fields
    connect.deploy("lr-envelope-sink", crafted(topic, "lr_envelope", Map.of()), 1);
    Map<String, String> flat = new HashMap<>(sinkSideUnwrap("flattened", false));
    flat.put("transforms.unwrap.add.fields", ADD_FIELDS);
    flat.put("route.regex.rules", "lr\\.public\\.(.*)=>$1");
    connect.deploy("lr-flat-sink", crafted(topic, "lr_flat", flat), 1);
    List<String> sinks = List.of("lr-envelope-sink", "lr-flat-sink");
    List<String> databases = List.of("lr_envelope", "lr_flat");
    awaitNames(databases, Map.of(0, "first", 9, "first"));

    // Debezium restarted after a crash and sends changes 5-9 again, then goes on
    for (int id = 5; id < 10; id++) {
      produce(topic, id, "first", 90_000 + 100L * id, 1_000 + id);
    }
    produce(topic, 3, "updated", 91_000, 1_010);
    awaitNames(databases, Map.of(3, "updated", 9, "first"));
    for (String sink : sinks) {
      assertThat(connect.failure(sink)).as(sink).isNull();
    }

    // the database moved to a new cluster: its LSNs start far lower, its changes come later
    produce(topic, 4, "on the new cluster", 500, 60_000);
    long offset =
        ConnectPlatform.readAll(connect.bootstrapServers(), topic, false).stream()
                .filter(r -> r.partition() == 0)
                .count()
            - 1;
    for (String sink : sinks) {
      Awaitility.await()
          .atMost(CATCH_UP)
          .until(() -> connect.failure(sink) != null && connect.failure(sink).contains("lower"));
      assertThat(connect.failure(sink))
          .contains(topic + "-0@" + offset)
          .contains("postgres_lsn 500 (source.ts_ms 60000)")
          .contains("postgres_lsn 90800 (source.ts_ms 1008)")
          .contains("restarted lower")
          .contains("Positions going backwards");
    }
    // the change that would have lost against the stored row was not taken as applied
    awaitNames(databases, Map.of(4, "first"));
    sinks.forEach(connect::delete);
  }

  @Test
  void concurrentTransactionsWhoseChangeLsnsGoBackDoNotStopTheSink() throws Exception {
    String db = "ct";
    createItems(db);
    Map<String, String> source = new HashMap<>(DebeziumPostgres.config(pg, db, db, "public.items"));
    source.put("topic.creation.default.partitions", "2");
    connect.deploy(db + "-pg", source, 1);
    Map<String, String> envelopeSink =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, db + "\\..*", db));
    envelopeSink.put("tasks.max", "2");
    connect.deploy(db + "-sink", envelopeSink, 2);
    Map<String, String> flatSink =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, db + "\\..*", db + "_flat"));
    flatSink.putAll(sinkSideUnwrap("flattened", false));
    flatSink.put("transforms.unwrap.add.fields", ADD_FIELDS);
    flatSink.put("route.regex.rules", db + "\\.public\\.(.*)=>$1");
    connect.deploy(db + "-flat-sink", flatSink, 1);
    awaitLakeEqualsDatabase(db, "items");

    // each round: T1 writes first, T2 writes and commits, T1 writes again and commits last; T1's
    // first change has a lower LSN than T2's but comes after it in the topic
    try (Connection t1 = pg.connect(db);
        Connection t2 = pg.connect(db);
        Statement s1 = t1.createStatement();
        Statement s2 = t2.createStatement()) {
      t1.setAutoCommit(false);
      t2.setAutoCommit(false);
      for (int round = 0; round < 20; round++) {
        s1.executeUpdate("UPDATE items SET v = v + 1 WHERE id % 20 = " + round);
        s2.executeUpdate("UPDATE items SET v = v * 2 WHERE id % 20 = " + (19 - round));
        s2.executeUpdate("INSERT INTO items VALUES (" + (1000 + round) + ", 't2', " + round + ")");
        t2.commit();
        s1.executeUpdate("UPDATE items SET name = 't1 " + round + "' WHERE id % 20 = " + round);
        t1.commit();
      }
    }
    awaitLakeEqualsDatabase(db, "items");
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, db, "public", "items"),
        lakeTable(db + "_flat", "items"),
        CATCH_UP,
        () -> connect.failure(db + "-flat-sink"));
    assertThat(connect.failure(db + "-pg", db + "-sink", db + "-flat-sink")).isNull();
    // the stream really had change LSNs going back within a partition
    assertThat(lsnDropsWithinPartitions(db + ".public.items")).isPositive();
  }

  /** How many records carry a lower change LSN than a record before them in their partition. */
  private static int lsnDropsWithinPartitions(String topic) throws Exception {
    Map<Integer, Long> highest = new HashMap<>();
    int drops = 0;
    for (ConsumerRecord<byte[], byte[]> r :
        ConnectPlatform.readAll(connect.bootstrapServers(), topic, false)) {
      if (r.value() == null) {
        continue;
      }
      JsonNode source = JSON.readTree(r.value()).path("payload").path("source");
      if (!"false".equals(source.path("snapshot").asText())) {
        continue;
      }
      long lsn = source.path("lsn").asLong();
      Long before = highest.get(r.partition());
      if (before != null && lsn < before) {
        drops++;
      }
      highest.merge(r.partition(), lsn, Math::max);
    }
    return drops;
  }

  private static Map<String, String> crafted(
      String topic, String database, Map<String, String> overrides) {
    Map<String, String> config =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, topic, database));
    config.remove("topics.regex");
    config.put("topics", topic);
    config.put("input.format", "envelope");
    config.putAll(overrides);
    return config;
  }

  /** Waits until each Paimon database's {@code items} has these names for these ids. */
  private static void awaitNames(List<String> databases, Map<Integer, String> names) {
    for (String database : databases) {
      Awaitility.await()
          .atMost(CATCH_UP)
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                Map<Integer, String> found = new HashMap<>();
                for (Map<String, Object> row : lakeTable(database, "items").read()) {
                  found.put((Integer) row.get("id"), (String) row.get("name"));
                }
                assertThat(found).as(database).containsAllEntriesOf(names);
              });
    }
  }

  /** Produces a PostgreSQL envelope of key {@code id} to partition {@code id % 2}. */
  private static void produce(String topic, int id, String name, long lastCommitLsn, long tsMs) {
    produce(topic, id % 2, insert(id, name, lastCommitLsn + 10, lastCommitLsn, tsMs));
  }

  private static void produce(String topic, int partition, JsonRecord record) {
    connect
        .cluster()
        .kafka()
        .produce(
            topic,
            partition,
            new String(record.key(), StandardCharsets.UTF_8),
            new String(record.value(), StandardCharsets.UTF_8));
  }

  private static final DebeziumTable ITEMS =
      DebeziumTable.builder("items")
          .server("rc")
          .database("rc")
          .key("id", Schema.INT32_SCHEMA)
          .column("name", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  /**
   * A Debezium PostgreSQL insert envelope of table rc.public.items, as JsonConverter with schemas
   * writes it; with {@code lastCommitLsn} it carries {@code sequence} too.
   */
  private static JsonRecord insert(int id, String name, long lsn, Long lastCommitLsn, long tsMs) {
    Change change = ITEMS.create(ITEMS.row(id, name)).atLsn(lsn).atSourceTsMs(tsMs);
    return (lastCommitLsn == null ? change : change.withSequence(lastCommitLsn))
        .json(InputShape.ENVELOPE)
        .orElseThrow();
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
    // Debezium skips truncates unless told otherwise (skipped.operations defaults to t)
    source.put("skipped.operations", "none");
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
