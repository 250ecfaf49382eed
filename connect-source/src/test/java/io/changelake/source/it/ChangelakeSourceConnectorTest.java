package io.changelake.source.it;

import static io.changelake.source.it.LakeFixture.delete;
import static io.changelake.source.it.LakeFixture.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.source.it.ConnectFixture.Event;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source connector in a real Connect worker reading real Paimon tables. */
class ChangelakeSourceConnectorTest {
  private static final List<String> COLUMNS = List.of("id", "name", "qty");

  @TempDir static Path dir;
  private static LakeFixture lake;
  private static ConnectFixture kafka;

  @BeforeAll
  static void start() {
    lake = new LakeFixture(dir.resolve("warehouse"));
    kafka = new ConnectFixture(false);
  }

  @AfterAll
  static void stop() throws Exception {
    kafka.close();
    lake.close();
  }

  private static Map<String, String> config(String... keyValues) {
    return ConnectFixture.sourceConfig(lake.catalogProps(), keyValues);
  }

  @Test
  void fullStateThenUpdatesAndDeletesRebuildTheTable() throws Exception {
    Identifier orders = lake.createTable("full_db", "orders", 2, "lookup");
    lake.commit(orders, upsert(1, "a", 1), upsert(2, "b", 2), upsert(3, "c", 3));
    lake.commit(orders, upsert(4, "d", 4), upsert(5, "e", 5));

    kafka.startConnector("full", config("tables", "full_db.orders"));
    List<Event> snapshot = kafka.awaitEvents("full_db.orders", 5);
    assertThat(snapshot).extracting(Event::op).containsOnly("r");
    assertThat(snapshot).allSatisfy(e -> assertThat(e.before()).isNull());
    assertThat(snapshot)
        .extracting(e -> e.value().getStruct("source").getString("snapshot"))
        .containsOnly("true", "last")
        .containsOnlyOnce("last");
    assertThat(snapshot.get(0).value().getStruct("source").getString("db")).isEqualTo("full_db");
    assertThat(snapshot.get(0).value().schema().name()).isEqualTo("full_db.orders.Envelope");

    lake.commit(orders, upsert(1, "a", 10), delete(2, "b", 2), upsert(6, "f", 6));
    List<Event> all = kafka.awaitEvents("full_db.orders", 9);
    assertThat(all).hasSize(9);
    List<Event> changes = all.stream().filter(e -> !snapshot.contains(e)).toList();

    Event update = only(changes, 1);
    assertThat(update.op()).isEqualTo("u");
    assertThat(update.before().getInt32("qty")).isEqualTo(1);
    assertThat(update.after().getInt32("qty")).isEqualTo(10);
    assertThat(update.value().getStruct("source").getString("snapshot")).isEqualTo("false");

    List<Event> deleteEvents = changes.stream().filter(e -> e.id() == 2).toList();
    assertThat(deleteEvents).hasSize(2);
    assertThat(deleteEvents.get(0).op()).isEqualTo("d");
    assertThat(deleteEvents.get(0).before().getString("name")).isEqualTo("b");
    assertThat(deleteEvents.get(0).after()).isNull();
    assertThat(deleteEvents.get(1).tombstone()).isTrue();

    assertThat(only(changes, 6).op()).isEqualTo("c");
    assertKeysStayInOnePartition(all);
    assertThat(ChangeReplay.replay(all, COLUMNS)).isEqualTo(lake.rows(orders));
  }

  @Test
  void metricsPerTableShowWhatWasPublishedAndThatNothingIsBehind() throws Exception {
    Identifier table = lake.createTable("metrics_db", "t", 2, "input");
    lake.commit(table, upsert(1, "a", 1), upsert(2, "b", 2), upsert(3, "c", 3));
    kafka.startConnector("metrics", config("tables", "metrics_db.t"));
    kafka.awaitEvents("metrics_db.t", 3);
    lake.commit(table, upsert(1, "a", 10));
    lake.commit(table, delete(2, "b", 2));
    kafka.awaitEvents("metrics_db.t", 3 + 1 + 2); // the delete is followed by its tombstone
    long latest = lake.table(table).snapshotManager().latestSnapshotId();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(tableMetric("metrics", "metrics_db.t", "table-records-out-total"))
                  .isEqualTo(6);
              // the full state, then one transaction per later snapshot
              assertThat(tableMetric("metrics", "metrics_db.t", "table-transactions-total"))
                  .isEqualTo(3);
              assertThat(tableMetric("metrics", "metrics_db.t", "table-last-snapshot-id"))
                  .isEqualTo(latest);
              assertThat(tableMetric("metrics", "metrics_db.t", "table-snapshots-behind")).isZero();
              assertThat(
                      tableMetric("metrics", "metrics_db.t", "table-time-since-last-snapshot-ms"))
                  .isNotNegative();
            });
    kafka.connect.deleteConnector("metrics");
  }

  /** A table metric of the connector's task as the worker publishes it in JMX. */
  private static long tableMetric(String connector, String table, String metric) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name :
        server.queryNames(
            new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null)) {
      if (table.equals(name.getKeyProperty("table"))) {
        return ((Number) server.getAttribute(name, metric)).longValue();
      }
    }
    throw new AssertionError("no metrics of table " + table + " of connector " + connector);
  }

  @Test
  void latestPublishesOnlyLaterChanges() throws Exception {
    Identifier table = lake.createTable("latest_db", "t", 1, "lookup");
    lake.commit(table, upsert(1, "before-start", 1));
    kafka.startConnector("latest", config("tables", "latest_db.t", "start.position", "latest"));
    // the task's start races this test: keep committing until the first marker arrives
    int[] marker = {100};
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              lake.commit(table, upsert(marker[0]++, "marker", 0));
              return !kafka.readAll("latest_db.t", "read_uncommitted").isEmpty();
            });
    lake.commit(table, upsert(1, "after-start", 2));
    List<Event> events = kafka.awaitEvents("latest_db.t", 2);
    assertThat(events)
        .noneMatch(e -> !e.tombstone() && "before-start".equals(e.after().getString("name")));
    assertThat(events).extracting(Event::op).doesNotContain("r");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                kafka.readAll("latest_db.t", "read_uncommitted").stream()
                    .anyMatch(
                        e -> e.id() == 1 && "after-start".equals(e.after().getString("name"))));
  }

  @Test
  void snapshotIdAndTimestampStartWhereAsked() throws Exception {
    Identifier table = lake.createTable("start_db", "t", 1, "input");
    lake.commit(table, upsert(1, "s1", 1));
    lake.commit(table, upsert(2, "s2", 2));
    long secondSnapshot = lake.table(table).snapshotManager().latestSnapshotId();
    Thread.sleep(20); // commit times must differ from the cut-off, whatever the clock resolution
    long cutOff = System.currentTimeMillis();
    Thread.sleep(20);
    lake.commit(table, upsert(3, "s3", 3));

    kafka.startConnector(
        "from-snapshot",
        config(
            "tables", "start_db.t",
            "start.position", "snapshot",
            "start.snapshot.id", Long.toString(secondSnapshot),
            "topic.name.format", "by-id.${database}.${table}"));
    kafka.startConnector(
        "from-timestamp",
        config(
            "tables", "start_db.t",
            "start.position", "timestamp",
            "start.timestamp.ms", Long.toString(cutOff),
            "topic.name.format", "by-time.${database}.${table}"));

    assertThat(ids(kafka.awaitEvents("by-id.start_db.t", 2))).containsExactlyInAnyOrder(2, 3);
    assertThat(ids(kafka.awaitEvents("by-time.start_db.t", 1))).containsExactly(3);
    // a later marker proves nothing else was coming
    lake.commit(table, upsert(4, "s4", 4));
    assertThat(ids(kafka.awaitEvents("by-id.start_db.t", 3))).containsExactlyInAnyOrder(2, 3, 4);
    assertThat(ids(kafka.awaitEvents("by-time.start_db.t", 2))).containsExactlyInAnyOrder(3, 4);
  }

  @Test
  void anAddedColumnReachesTheEventsWithoutRestart() throws Exception {
    Identifier table = lake.createTable("evolve_db", "t", 1, "lookup");
    lake.commit(table, upsert(1, "a", 1));
    kafka.startConnector("evolve", config("tables", "evolve_db.t"));
    kafka.awaitEvents("evolve_db.t", 1);

    lake.addColumn(table, "note", DataTypes.STRING());
    lake.commit(table, upsert(2, "b", 2, "hello"), upsert(1, "a", 5, "changed"));
    List<Event> events = kafka.awaitEvents("evolve_db.t", 3);
    Event inserted = only(events, 2);
    assertThat(inserted.after().getString("note")).isEqualTo("hello");
    Event updated =
        events.stream().filter(e -> e.id() == 1 && e.op().equals("u")).findFirst().orElseThrow();
    assertThat(updated.after().getString("note")).isEqualTo("changed");
    assertThat(updated.after().getInt32("qty")).isEqualTo(5);
    assertThat(ChangeReplay.replay(events, List.of("id", "name", "qty", "note")))
        .isEqualTo(lake.rows(table));
  }

  /**
   * Widenings the sink applies while the source runs: rows written after them arrive with values
   * the old types could not hold (a reader on the old schema cast them down: an NPE for the
   * decimal), rows written before them still read.
   */
  @Test
  void widenedColumnsReachTheEventsWithTheirNewValues() throws Exception {
    Identifier table = lake.createTable("widen_db", "t", 1, "lookup");
    lake.addColumn(table, "price", DataTypes.DECIMAL(10, 2));
    lake.commit(table, upsert(1, "a", 1, Decimal.fromBigDecimal(new BigDecimal("12.34"), 10, 2)));
    kafka.startConnector("widen", config("tables", "widen_db.t"));
    kafka.awaitEvents("widen_db.t", 1);

    lake.alter(
        table,
        SchemaChange.updateColumnType("price", DataTypes.DECIMAL(14, 4), true),
        SchemaChange.updateColumnType("qty", DataTypes.BIGINT(), true));
    lake.commit(
        table,
        upsert(2, "b", 1L << 40, Decimal.fromBigDecimal(new BigDecimal("1234567890.1234"), 14, 4)),
        upsert(1, "a", 2L, Decimal.fromBigDecimal(new BigDecimal("12.3456"), 14, 4)));
    List<Event> events = kafka.awaitEvents("widen_db.t", 3);
    Event inserted = only(events, 2);
    assertThat(inserted.after().getInt64("qty")).isEqualTo(1L << 40);
    assertThat(new BigDecimal(inserted.after().get("price").toString()))
        .isEqualByComparingTo("1234567890.1234");
    Event updated =
        events.stream().filter(e -> e.id() == 1 && e.op().equals("u")).findFirst().orElseThrow();
    assertThat(new BigDecimal(updated.before().get("price").toString()))
        .as("the row written before the change, read with the new type")
        .isEqualByComparingTo("12.34");
    assertThat(new BigDecimal(updated.after().get("price").toString()))
        .isEqualByComparingTo("12.3456");
  }

  /**
   * A truncate (an overwrite snapshot) reaches the topic as Debezium's {@code op=t}, in order with
   * the events before and after it; an overwrite that leaves rows is followed by them as reads.
   */
  @Test
  void truncatesArePublishedInOrderWithTheChangesAroundThem() throws Exception {
    Identifier table = lake.createTable("trunc_db", "t", 2, "input");
    lake.commit(table, upsert(1, "a", 1), upsert(2, "b", 2));
    kafka.startConnector(
        "trunc",
        config(
            "tables",
            "trunc_db.t",
            "start.position",
            "snapshot",
            "start.snapshot.id",
            "1",
            // one partition: the truncate (no key) is ordered with every key's events
            "topic.creation.default.partitions",
            "1"));
    kafka.awaitEvents("trunc_db.t", 2);
    lake.overwrite(table); // TRUNCATE
    lake.commit(table, upsert(3, "c", 3));
    lake.overwrite(table, upsert(4, "d", 4), upsert(5, "e", 5)); // INSERT OVERWRITE
    lake.commit(table, upsert(6, "f", 6));

    List<Event> events = kafka.awaitEvents("trunc_db.t", 8);
    List<String> ops =
        events.stream().map(e -> e.op() + (e.key() == null ? "" : String.valueOf(e.id()))).toList();
    assertThat(ops.subList(0, 2)).containsExactlyInAnyOrder("c1", "c2");
    assertThat(ops.subList(2, 5)).containsExactly("t", "c3", "t");
    assertThat(ops.subList(5, 7)).containsExactlyInAnyOrder("r4", "r5");
    assertThat(ops.subList(7, 8)).containsExactly("c6");
    assertThat(events).hasSize(8);
    Event truncate = events.get(2);
    assertThat(truncate.value().getStruct("source").getString("table")).isEqualTo("t");
    assertThat(truncate.value().getStruct("source").getString("commit_kind"))
        .isEqualTo("OVERWRITE");
    assertThat(truncate.before()).isNull();
    assertThat(truncate.after()).isNull();
  }

  /**
   * A table whose stored values no longer fit its schema (narrowed by another engine) stops alone
   * with a clear error; the task's other table goes on.
   */
  @Test
  void aTableThatCannotBeReadStopsAloneAndTheOthersGoOn() throws Exception {
    Identifier broken = lake.createTable("broken_db", "narrowed", 1, "input");
    Identifier healthy = lake.createTable("broken_db", "healthy", 1, "input");
    lake.addColumn(broken, "price", DataTypes.DECIMAL(14, 4));
    lake.commit(broken, upsert(1, "a", 1, Decimal.fromBigDecimal(new BigDecimal("1.5"), 14, 4)));
    lake.commit(
        broken,
        upsert(2, "b", 2, Decimal.fromBigDecimal(new BigDecimal("1234567890.1234"), 14, 4)));
    lake.alter(broken, SchemaChange.updateColumnType("price", DataTypes.DECIMAL(10, 2), true));
    lake.commit(healthy, upsert(1, "a", 1));
    kafka.startConnector(
        "broken",
        config(
            "tables.regex",
            "broken_db\\..*",
            "start.position",
            "snapshot",
            "start.snapshot.id",
            "1"));
    kafka.awaitEvents("broken_db.narrowed", 1);
    kafka.awaitEvents("broken_db.healthy", 1);

    lake.commit(healthy, upsert(2, "b", 2));
    lake.commit(healthy, upsert(3, "c", 3));

    assertThat(ids(kafka.awaitEvents("broken_db.healthy", 3))).containsExactlyInAnyOrder(1, 2, 3);
    kafka.awaitRunning("broken", 1);
    assertThat(ids(kafka.readAll("broken_db.narrowed", "read_uncommitted")))
        .as("nothing of the unreadable snapshot is published")
        .containsExactly(1);
    // the stopped table shows in the per-table metrics, falling behind; the healthy one does not
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(tableMetric("broken", "broken_db.narrowed", "table-stopped")).isEqualTo(1);
              assertThat(tableMetric("broken", "broken_db.narrowed", "table-snapshots-behind"))
                  .isPositive();
              assertThat(tableMetric("broken", "broken_db.healthy", "table-stopped")).isZero();
            });
  }

  /**
   * With the table's buckets read by two tasks into one topic partition, the truncate still comes
   * after every row committed before it and before every row committed after it, whichever task
   * published them.
   */
  @Test
  void aTruncateStaysInOrderWhenTheTablesBucketsAreReadBySeveralTasks() throws Exception {
    Identifier table = lake.createTable("truncsplit_db", "t", 4, "input");
    for (int id = 1; id <= 12; id++) {
      lake.commit(table, upsert(id, "before", id));
    }
    lake.overwrite(table); // TRUNCATE
    for (int id = 101; id <= 112; id++) {
      lake.commit(table, upsert(id, "after", id));
    }
    kafka.configure(
        "truncsplit",
        config(
            "tables",
            "truncsplit_db.t",
            "tasks.max",
            "2",
            "start.position",
            "snapshot",
            "start.snapshot.id",
            "1",
            "topic.creation.default.partitions",
            "1"));
    kafka.awaitRunning("truncsplit", 2);
    List<Event> events = kafka.awaitEvents("truncsplit_db.t", 25);
    List<String> ops =
        events.stream()
            .map(e -> e.key() == null ? "t" : e.id() < 100 ? "before" : "after")
            .toList();
    assertThat(ops.subList(0, 12)).as(ops.toString()).containsOnly("before");
    assertThat(ops.get(12)).as(ops.toString()).isEqualTo("t");
    assertThat(ops.subList(13, 25)).as(ops.toString()).containsOnly("after");
    assertThat(events).hasSize(25);
    kafka.connect.deleteConnector("truncsplit");
  }

  @Test
  void restartsResumeExactlyWhereTheyStopped() throws Exception {
    Identifier table = lake.createTable("restart_db", "t", 2, "lookup");
    for (int i = 0; i < 5; i++) {
      lake.commit(table, upsert(2 * i, "x", i), upsert(2 * i + 1, "y", i));
    }
    // small batches: offsets land in the middle of snapshots
    kafka.startConnector("restart", config("tables", "restart_db.t", "batch.size", "3"));
    kafka.awaitEvents("restart_db.t", 10);

    kafka.connect.stopConnector("restart");
    lake.commit(table, upsert(0, "x", 100), upsert(20, "z", 1));
    kafka.connect.resumeConnector("restart");
    kafka.awaitRunning("restart", 1);
    kafka.awaitEvents("restart_db.t", 12);

    kafka.connect.restartConnectorAndTasks("restart", false, true, false);
    kafka.awaitRunning("restart", 1);
    lake.commit(table, upsert(21, "marker", 1));
    List<Event> events = kafka.awaitEvents("restart_db.t", 13);
    assertThat(events).hasSize(13);
    assertThat(events.stream().map(e -> e.id() + "/" + e.op() + "/" + e.after().getInt32("qty")))
        .doesNotHaveDuplicates();
    assertThat(ChangeReplay.replay(events, COLUMNS)).isEqualTo(lake.rows(table));
  }

  @Test
  void tablesCreatedLaterArePickedUpWithoutRestart() throws Exception {
    Identifier first = lake.createTable("disc_db", "first", 1, "lookup");
    lake.commit(first, upsert(1, "a", 1));
    kafka.startConnector("discover", config("tables.regex", "disc_db\\..*", "tasks.max", "2"));
    kafka.awaitEvents("disc_db.first", 1);

    Identifier second = lake.createTable("disc_db", "second", 1, "lookup");
    lake.commit(second, upsert(7, "b", 1));
    assertThat(ids(kafka.awaitEvents("disc_db.second", 1))).containsExactly(7);
    kafka.awaitRunning("discover", 2);
  }

  @Test
  void flatRecordsCarryTheRowAndOperation() throws Exception {
    Identifier table = lake.createTable("flat_db", "t", 1, "lookup");
    lake.commit(table, upsert(1, "a", 1));
    kafka.startConnector(
        "flat", config("tables", "flat_db.t", "record.format", "flat", "start.position", "full"));
    kafka.awaitEvents("flat_db.t", 1);
    lake.commit(table, upsert(1, "a2", 2));
    lake.commit(table, delete(1, "a2", 2));
    lake.commit(table, upsert(2, "b", 3));
    // r, u, d and its tombstone, c
    List<Event> events = kafka.awaitEvents("flat_db.t", 5);
    assertThat(events).hasSize(5);
    assertThat(events.get(0).value().schema().name()).isEqualTo("flat_db.t.Value");
    // each flat value is the whole row (for a delete the old row) and its operation
    assertThat(events.stream().filter(e -> !e.tombstone()))
        .extracting(
            e ->
                e.value().getString("__op")
                    + " "
                    + e.value().getInt32("id")
                    + " "
                    + e.value().getString("name")
                    + " "
                    + e.value().getInt32("qty"))
        .containsExactly("r 1 a 1", "u 1 a2 2", "d 1 a2 2", "c 2 b 3");
    assertThat(events.get(3).tombstone()).as("a tombstone follows the delete").isTrue();
    assertThat(events.get(3).id()).isEqualTo(1);
    assertThat(events).allSatisfy(e -> assertThat(e.key().schema().fields()).hasSize(1));
  }

  @Test
  void theCachingConverterPublishesWhatJsonConverterPublishes() throws Exception {
    Identifier table = lake.createTable("conv_db", "t", 2, "lookup");
    lake.commit(table, upsert(1, "grüße \"q\"", 1), upsert(2, "b", 2), upsert(3, "c", 3));
    String caching = "io.changelake.sink.converter.CachingJsonConverter";
    kafka.startConnector(
        "conv-json",
        config(
            "tables", "conv_db.t",
            "topic.name.format", "json.${table}",
            "topic.creation.default.partitions", "1"));
    kafka.startConnector(
        "conv-caching",
        config(
            "tables", "conv_db.t",
            "topic.name.format", "caching.${table}",
            "topic.creation.default.partitions", "1",
            "key.converter", caching,
            "key.converter.schemas.enable", "true",
            "value.converter", caching,
            "value.converter.schemas.enable", "true"));
    kafka.awaitEvents("json.t", 3);
    kafka.awaitEvents("caching.t", 3);
    lake.commit(table, upsert(1, "a2", 10), delete(2, "b", 2), upsert(4, "d", 4));
    // three read events, an update, a delete and its tombstone, a create
    List<Event> json = kafka.awaitEvents("json.t", 7);
    List<Event> cached = kafka.awaitEvents("caching.t", 7);

    // the same changes (each connector stamps its own ts_ms, names its own topic) ...
    assertThat(cached).hasSize(7);
    assertThat(cached)
        .extracting(ChangelakeSourceConnectorTest::withoutTime)
        .containsExactlyElementsOf(
            json.stream().map(ChangelakeSourceConnectorTest::withoutTime).toList());
    // ... in exactly the bytes JsonConverter writes for them
    org.apache.kafka.connect.json.JsonConverter keys =
        new org.apache.kafka.connect.json.JsonConverter();
    keys.configure(Map.of("schemas.enable", "true"), true);
    org.apache.kafka.connect.json.JsonConverter values =
        new org.apache.kafka.connect.json.JsonConverter();
    values.configure(Map.of("schemas.enable", "true"), false);
    int checked = 0;
    for (org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record :
        kafka.connect.kafka().consume(7, 30_000, "caching.t")) {
      org.apache.kafka.connect.data.SchemaAndValue key =
          keys.toConnectData("caching.t", record.key());
      assertThat(keys.fromConnectData("caching.t", key.schema(), key.value()))
          .isEqualTo(record.key());
      if (record.value() != null) {
        org.apache.kafka.connect.data.SchemaAndValue value =
            values.toConnectData("caching.t", record.value());
        assertThat(values.fromConnectData("caching.t", value.schema(), value.value()))
            .isEqualTo(record.value());
      }
      checked++;
    }
    assertThat(checked).isEqualTo(7);
  }

  private static String withoutTime(Event event) {
    String text =
        event.tombstone()
            ? event.key() + " tombstone"
            : String.join(
                " ",
                event.key().toString(),
                event.value().schema().name(),
                event.op(),
                String.valueOf(event.before()),
                String.valueOf(event.after()),
                event.value().getStruct("source").toString());
    // the envelope's name follows the topic, source.name the connector
    return text.replace("caching.t", "<topic>")
        .replace("json.t", "<topic>")
        .replace("conv-caching", "<connector>")
        .replace("conv-json", "<connector>");
  }

  @Test
  void anExpiredPositionFailsTheTaskWithResetInstructions() throws Exception {
    Identifier table = lake.createTable("expiry_db", "t", 1, "input");
    for (int i = 0; i < 4; i++) {
      lake.commit(table, upsert(i, "v", i));
    }
    kafka.connect.configureConnector(
        new CreateConnectorRequest(
            "expiry",
            config("tables", "expiry_db.t"),
            CreateConnectorRequest.InitialState.STOPPED));
    Map<String, Object> partition = new LinkedHashMap<>();
    partition.put("database", "expiry_db");
    partition.put("table", "t");
    partition.put("bucket", "0");
    kafka.connect.alterSourceConnectorOffset(
        "expiry", partition, Map.of("snapshot_id", 1, "row_offset", 0, "full_state", false));
    lake.table(table)
        .newExpireSnapshots()
        .config(
            ExpireConfig.builder()
                .snapshotRetainMax(1)
                .snapshotRetainMin(1)
                .snapshotTimeRetain(Duration.ZERO)
                .build())
        .expire();

    kafka.connect.resumeConnector("expiry");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> taskState("expiry").map(ConnectorStateInfo.TaskState::state).orElse(""),
            "FAILED"::equals);
    String trace = taskState("expiry").orElseThrow().trace();
    assertThat(trace)
        .contains("expiry_db.t")
        .contains("DELETE /connectors/expiry/offsets")
        .contains("PATCH /connectors/expiry/offsets")
        .contains("\"database\": \"expiry_db\"");

    // the documented reset: stop, delete the offsets, resume -> starts over from start.position
    kafka.connect.stopConnector("expiry");
    kafka.connect.resetConnectorOffsets("expiry");
    kafka.connect.resumeConnector("expiry");
    kafka.awaitRunning("expiry", 1);
    assertThat(ids(kafka.awaitEvents("expiry_db.t", 4))).containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  @Test
  void bucketsOfOneTableAreSplitAcrossTasks() throws Exception {
    Identifier table = lake.createTable("split_db", "t", 4, "lookup");
    for (int id = 0; id < 12; id++) {
      lake.commit(table, upsert(id, "v", id));
    }
    kafka.configure("split", config("tables", "split_db.t", "tasks.max", "2"));
    kafka.awaitRunning("split", 2);
    assertThat(kafka.connect.taskConfigs("split"))
        .extracting(task -> task.config().get("task.tables"))
        .containsExactlyInAnyOrder("split_db.t@0,2", "split_db.t@1,3");
    lake.commit(table, upsert(3, "v", 300), delete(4, "v", 4));
    List<Event> events = kafka.awaitEvents("split_db.t", 15);
    assertThat(ids(events.stream().filter(e -> !e.tombstone() && e.op().equals("r")).toList()))
        .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    assertThat(ChangeReplay.replay(events, COLUMNS)).isEqualTo(lake.rows(table));
    assertKeysStayInOnePartition(events);
  }

  @Test
  void inputAndNoneProducersPublishTheWritesAsDocumented() throws Exception {
    Identifier input = lake.createTable("producers_db", "input_t", 1, "input");
    Identifier none = lake.createTable("producers_db", "none_t", 1, "none");
    for (Identifier table : List.of(input, none)) {
      lake.commit(table, upsert(1, "x", 1), upsert(2, "y", 2));
      lake.commit(
          table,
          LakeFixture.row(org.apache.paimon.types.RowKind.UPDATE_AFTER, 1, null, 10),
          upsert(2, "y2", 2),
          upsert(2, "y3", 3));
      lake.commit(table, delete(2, null, null));
    }
    kafka.startConnector(
        "producers",
        config(
            "tables.regex",
            "producers_db\\..*",
            "start.position",
            "snapshot",
            "start.snapshot.id",
            "1"));

    // input: every write, updates without a before image, the delete with what was written
    assertThat(perKey(kafka.awaitEvents("producers_db.input_t", 7)))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                1, List.of("c:x:1", "u:null:10"),
                2, List.of("c:y:2", "c:y2:2", "c:y3:3", "d:null:null", "tombstone")));
    // none: the writes of one commit merged per key
    assertThat(perKey(kafka.awaitEvents("producers_db.none_t", 6)))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                1, List.of("c:x:1", "u:null:10"),
                2, List.of("c:y:2", "c:y3:3", "d:null:null", "tombstone")));
  }

  /** Per key, in order: op:name:qty of each event (the old row for deletes). */
  private static Map<Integer, List<String>> perKey(List<Event> events) {
    return events.stream()
        .collect(
            Collectors.groupingBy(
                Event::id,
                Collectors.mapping(
                    e -> {
                      if (e.tombstone()) {
                        return "tombstone";
                      }
                      var row = e.after() != null ? e.after() : e.before();
                      return e.op() + ":" + row.getString("name") + ":" + row.get("qty");
                    },
                    Collectors.toList())));
  }

  private static java.util.Optional<ConnectorStateInfo.TaskState> taskState(String connector) {
    return kafka.connect.connectorStatus(connector).tasks().stream().findFirst();
  }

  private static Event only(List<Event> events, int id) {
    List<Event> matching = events.stream().filter(e -> e.id() == id && !e.tombstone()).toList();
    assertThat(matching).as("events of id %s", id).hasSize(1);
    return matching.get(0);
  }

  private static List<Integer> ids(List<Event> events) {
    return events.stream().filter(e -> !e.tombstone()).map(Event::id).toList();
  }

  private static void assertKeysStayInOnePartition(List<Event> events) {
    Map<Integer, Set<Integer>> partitions =
        events.stream()
            .collect(
                Collectors.groupingBy(
                    Event::id, Collectors.mapping(Event::partition, Collectors.toSet())));
    assertThat(partitions.values()).allSatisfy(p -> assertThat(p).hasSize(1));
    assertThat(events.stream().map(Event::partition).distinct().count()).isGreaterThan(1);
  }
}
