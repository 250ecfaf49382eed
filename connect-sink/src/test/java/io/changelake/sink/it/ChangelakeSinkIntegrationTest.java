package io.changelake.sink.it;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.changelake.sink.task.SequenceColumns;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The sink in a real Connect worker with a real broker, writing real Paimon tables. */
class ChangelakeSinkIntegrationTest {
  @TempDir static Path tmp;
  static SinkFixture fixture;

  @BeforeAll
  static void start() {
    fixture = new SinkFixture("changelake-sink-it", tmp.resolve("warehouse"));
  }

  @AfterAll
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  /** The name for a shape's run: envelopes keep the name they always had. */
  static String named(String name, InputShape shape) {
    return shape == InputShape.ENVELOPE ? name : name + "_" + shape.name().toLowerCase();
  }

  static DebeziumTable customers(String topic, String table) {
    fixture.connect.kafka().createTopic(topic, 1);
    return DebeziumTable.builder(table)
        .topic(topic)
        .firstLsn(1000)
        .key("id", Schema.INT32_SCHEMA)
        .column("name", Schema.OPTIONAL_STRING_SCHEMA)
        .build();
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void deduplicateTableMirrorsInsertsUpdatesAndDeletes(InputShape shape) {
    String table = named("customers", shape);
    DebeziumTable events = customers("server1.public." + table, table);
    fixture.startConnector(
        named("dedup", shape), fixture.routedConfig(shape, table, events.topic()));

    Struct ann = events.row(1, "ann");
    Struct bob = events.row(2, "bob");
    fixture.produce(shape, events.read(ann));
    fixture.produce(shape, events.create(bob));
    // PostgreSQL's default replica identity: no before image
    fixture.produce(shape, events.update(null, events.row(1, "ann2")));
    // a delete whose before image holds the key only, then Debezium's tombstone
    fixture.produce(shape, events.delete(events.row(2, null)));
    fixture.produce(shape, events.tombstone(events.keyOf(bob)));
    Struct cid = events.row(3, "cid");
    fixture.produce(shape, events.create(cid));
    fixture.produce(shape, events.update(cid, events.row(3, null)));

    fixture.awaitRows(table, List.of(values(1, "ann2"), values(3, null)));
    assertThat(fixture.columns(table))
        .containsExactly(
            "id", "name", SequenceColumns.SOURCE_POSITION, SequenceColumns.KAFKA_OFFSET);
    fixture.connect.deleteConnector(named("dedup", shape));
  }

  @Test
  void topicsRegexCreatesTablesForNewTopicsWithoutRestart() {
    DebeziumTable orders = customers("live.public.orders", "orders");
    Struct order = orders.row(1, "first");
    Map<String, String> config =
        fixture.sinkConfig(
            "", "route.table.format", "${source.table}", "topics.regex", "live\\.public\\..*");
    config.remove("topics");
    fixture.startConnector("live", config);
    fixture.produce(InputShape.ENVELOPE, orders.create(order));
    fixture.awaitRows("orders", List.of(values(1, "first")));

    DebeziumTable invoices = customers("live.public.invoices", "invoices");
    Struct invoice = invoices.row(7, "new table");
    fixture.produce(InputShape.ENVELOPE, invoices.create(invoice));

    fixture.awaitRows("invoices", List.of(values(7, "new table")));
    fixture.connect.deleteConnector("live");
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void partialUpdateFillsOneWideTableFromTwoTopics(InputShape shape) {
    String wide = named("customer_wide", shape);
    DebeziumTable profile =
        DebeziumTable.builder(named("profile", shape))
            .firstLsn(1000)
            .key("id", Schema.INT32_SCHEMA)
            .column("name", Schema.OPTIONAL_STRING_SCHEMA)
            .column("email", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    DebeziumTable score =
        DebeziumTable.builder(named("score", shape))
            .firstLsn(5000)
            .key("id", Schema.INT32_SCHEMA)
            .column("score", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    fixture.connect.kafka().createTopic(profile.topic(), 1);
    fixture.connect.kafka().createTopic(score.topic(), 1);
    fixture.startConnector(
        named("wide", shape),
        fixture.sinkConfig(
            shape,
            profile.topic() + "," + score.topic(),
            "route.table.format",
            wide,
            "table." + wide + ".merge-engine",
            "partial-update",
            "table." + wide + ".delete-policy",
            "remove-row"));

    Struct ann = profile.row(1, "ann", "ann@example.com");
    Struct bob = profile.row(2, "bob", "bob@example.com");
    fixture.produce(shape, profile.create(ann));
    fixture.produce(shape, profile.create(bob));
    fixture.awaitRows(
        wide, List.of(values(1, "ann", "ann@example.com"), values(2, "bob", "bob@example.com")));

    Struct annScore = score.row(1, 10L);
    fixture.produce(shape, score.create(annScore));
    fixture.produce(shape, score.update(null, score.row(1, 20L)));
    // an unchanged TOASTed column arrives as Debezium's placeholder: the stored value stays
    fixture.produce(
        shape, profile.update(null, profile.row(1, "ann2", "__debezium_unavailable_value")));

    fixture.awaitRows(
        wide,
        List.of(
            values(1, "ann2", "ann@example.com", 20L), values(2, "bob", "bob@example.com", null)));

    fixture.produce(shape, profile.delete(bob));
    fixture.awaitRows(wide, List.of(values(1, "ann2", "ann@example.com", 20L)));
    fixture.connect.deleteConnector(named("wide", shape));
  }

  // envelopes only: flattened rows carry no before image
  @Test
  void deduplicateKeepsToastedValuesFromTheBeforeImage() {
    DebeziumTable events = customers("server1.public.docs", "docs");
    fixture.startConnector(
        "toast", fixture.sinkConfig(events.topic(), "route.table.format", "${source.table}"));

    Struct doc = events.row(1, "long text");
    fixture.produce(InputShape.ENVELOPE, events.create(doc));
    // REPLICA IDENTITY FULL: the before image carries the value the after image lacks
    fixture.produce(
        InputShape.ENVELOPE, events.update(doc, events.row(1, "__debezium_unavailable_value")));
    Struct other = events.row(2, "x");
    fixture.produce(InputShape.ENVELOPE, events.create(other));

    fixture.awaitRows("docs", List.of(values(1, "long text"), values(2, "x")));
    fixture.connect.deleteConnector("toast");
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void deduplicateKeepsToastedValuesFromTheStoredRowWithoutABeforeImage(InputShape shape) {
    String table = named("notes", shape);
    DebeziumTable events = customers("server1.public." + table, table);
    fixture.startConnector(
        named("toast-lookup", shape), fixture.routedConfig(shape, table, events.topic()));

    Struct note = events.row(1, "long text");
    fixture.produce(shape, events.create(note));
    // PostgreSQL's default replica identity: no before image, the stored row has the value
    fixture.produce(shape, events.update(null, events.row(1, "__debezium_unavailable_value")));
    Struct other = events.row(2, "x");
    fixture.produce(shape, events.create(other));

    fixture.awaitRows(table, List.of(values(1, "long text"), values(2, "x")));
    fixture.connect.deleteConnector(named("toast-lookup", shape));
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void schemaChangeMidStreamAddsTheColumn(InputShape shape) {
    String table = named("evolving", shape);
    DebeziumTable v1 = customers("server1.public." + table, table);
    fixture.startConnector(named("evolve", shape), fixture.routedConfig(shape, table, v1.topic()));

    Struct ann = v1.row(1, "ann");
    fixture.produce(shape, v1.create(ann));
    fixture.awaitRows(table, List.of(values(1, "ann")));

    DebeziumTable v2 = v1.withColumn("email", Schema.OPTIONAL_STRING_SCHEMA);
    Struct bob = v2.row(2, "bob", "bob@example.com");
    fixture.produce(shape, v2.create(bob));
    fixture.produce(shape, v2.update(null, v2.row(1, "ann", "ann@example.com")));

    fixture.awaitRows(
        table, List.of(values(1, "ann", "ann@example.com"), values(2, "bob", "bob@example.com")));
    assertThat(fixture.columns(table)).containsSubsequence("id", "name", "email");
    fixture.connect.deleteConnector(named("evolve", shape));
  }

  @Test
  void theOwningTaskCompactsTheTable() throws Exception {
    DebeziumTable events = customers("server1.public.compacted", "compacted");
    fixture.startConnector(
        "compact",
        fixture.sinkConfig(
            events.topic(),
            "route.table.format",
            "${source.table}",
            "compaction.interval.ms",
            "1000"));

    for (int i = 1; i <= 3; i++) {
      Struct row = events.row(i, "v" + i);
      fixture.produce(InputShape.ENVELOPE, events.create(row));
      fixture.awaitRows("compacted", rowsUpTo(i));
    }

    // the first compaction of a JVM spends a while in Paimon's code generation: wait generously
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> fixture.commitUsers("compacted").contains("changelake-sink-compact-compactor"));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // say what the compactor threads were doing: a slow round and a stuck one look alike here
      StringBuilder threads = new StringBuilder();
      Thread.getAllStackTraces()
          .forEach(
              (thread, stack) -> {
                if (thread.getName().startsWith("changelake-compactor")) {
                  threads
                      .append('\n')
                      .append(thread.getName())
                      .append(' ')
                      .append(thread.getState());
                  for (StackTraceElement frame : stack) {
                    threads.append("\n  at ").append(frame);
                  }
                }
              });
      throw new AssertionError(
          "no compaction snapshot after 120 s; commit users "
              + fixture.commitUsers("compacted")
              + "; compactor threads:"
              + (threads.isEmpty() ? " none" : threads),
          e);
    }
    assertThat(fixture.commitUsers("compacted")).contains("changelake-sink-compact-task-0");
    fixture.awaitRows("compacted", rowsUpTo(3));
    fixture.connect.deleteConnector("compact");
  }

  private static List<List<Object>> rowsUpTo(int n) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      rows.add(values(i, "v" + i));
    }
    return rows;
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void truncateDeletesEveryRowByDefault(InputShape shape) {
    String table = named("emptied", shape);
    DebeziumTable events = customers("server1.public." + table, table);
    fixture.startConnector(
        named("truncate-delete-all", shape), fixture.routedConfig(shape, table, events.topic()));

    Struct ann = events.row(1, "ann");
    fixture.produce(shape, events.create(ann));
    fixture.awaitRows(table, List.of(values(1, "ann")));
    Struct bob = events.row(2, "bob");
    fixture.produce(shape, events.create(bob));
    fixture.produce(shape, events.truncate());
    Struct cid = events.row(3, "cid");
    fixture.produce(shape, events.create(cid));

    fixture.awaitRows(table, List.of(values(3, "cid")));
    fixture.connect.deleteConnector(named("truncate-delete-all", shape));
  }

  @Test
  void truncateIsIgnoredWhenConfigured() {
    DebeziumTable events = customers("server1.public.truncated", "truncated");
    fixture.startConnector(
        "truncate-ignore",
        fixture.sinkConfig(
            events.topic(),
            "route.table.format",
            "${source.table}",
            "table.truncate-policy",
            "ignore"));

    Struct ann = events.row(1, "ann");
    fixture.produce(InputShape.ENVELOPE, events.create(ann));
    fixture.produce(InputShape.ENVELOPE, events.truncate());
    Struct bob = events.row(2, "bob");
    fixture.produce(InputShape.ENVELOPE, events.create(bob));

    fixture.awaitRows("truncated", List.of(values(1, "ann"), values(2, "bob")));
    fixture.connect.deleteConnector("truncate-ignore");
  }

  @Test
  void truncateFailsTheTaskWhenRefused() {
    DebeziumTable events = customers("server1.public.notruncate", "notruncate");
    fixture.startConnector(
        "truncate-fail",
        fixture.sinkConfig(
            events.topic(),
            "route.table.format",
            "${source.table}",
            "table.truncate-policy",
            "fail"));

    Struct ann = events.row(1, "ann");
    fixture.produce(InputShape.ENVELOPE, events.create(ann));
    fixture.produce(InputShape.ENVELOPE, events.truncate());

    String trace = fixture.awaitTaskFailure("truncate-fail");
    assertThat(trace)
        .contains("server1.public.notruncate-0@1")
        .contains("lake.notruncate")
        .contains("truncate-policy=fail");
    // the row before the truncate was accepted, and is not lost
    fixture.awaitRows("notruncate", List.of(values(1, "ann")));
    fixture.connect.deleteConnector("truncate-fail");
  }

  @Test
  void truncatePolicyFailFailsTheTaskAlsoWhenErrorsAreTolerated() {
    DebeziumTable events = customers("server1.public.notruncate2", "notruncate2");
    fixture.startConnector(
        "truncate-fail-tolerant",
        fixture.sinkConfig(
            events.topic(),
            "route.table.format",
            "${source.table}",
            "table.truncate-policy",
            "fail",
            "errors.tolerance",
            "all",
            "errors.deadletterqueue.topic.name",
            "dlq-truncate",
            "errors.deadletterqueue.topic.replication.factor",
            "1"));

    Struct ann = events.row(1, "ann");
    fixture.produce(InputShape.ENVELOPE, events.create(ann));
    fixture.produce(InputShape.ENVELOPE, events.truncate());

    String trace = fixture.awaitTaskFailure("truncate-fail-tolerant");
    assertThat(trace)
        .contains("server1.public.notruncate2-0@1")
        .contains("also with errors.tolerance=all");
    fixture.awaitRows("notruncate2", List.of(values(1, "ann")));
    fixture.connect.deleteConnector("truncate-fail-tolerant");
  }

  @Test
  void connectRefusesAnObjectStoreWarehouseWithoutACatalogLock() {
    Map<String, String> config =
        fixture.sinkConfig("server1.public.nolock", "paimon.warehouse", "s3://lake/warehouse");

    assertThatThrownBy(() -> fixture.connect.configureConnector("no-lock", config))
        .hasMessageContaining("paimon.warehouse")
        .hasMessageContaining("paimon.metastore=jdbc");
  }

  @Test
  void badRecordsGoToTheDeadLetterQueueWithTheReason() {
    DebeziumTable events = customers("server1.public.dlq", "dlq_rows");
    fixture.startConnector(
        "dlq",
        fixture.sinkConfig(
            events.topic(),
            "route.table.format",
            "dlq_rows",
            "errors.tolerance",
            "all",
            "errors.deadletterqueue.topic.name",
            "dlq-out",
            "errors.deadletterqueue.topic.replication.factor",
            "1",
            "errors.deadletterqueue.context.headers.enable",
            "true"));

    Struct ann = events.row(1, "ann");
    fixture.produce(InputShape.ENVELOPE, events.create(ann));
    // not a change event at all
    fixture.produce(
        events.topic(),
        events.keyOf(ann),
        "{\"schema\":{\"type\":\"string\"},\"payload\":\"garbage\"}");
    // 'name' turns from text into a number: refused by schema.evolution.incompatible-type=FAIL
    DebeziumTable numeric =
        DebeziumTable.builder("dlq_rows")
            .topic(events.topic())
            .firstLsn(9000)
            .key("id", Schema.INT32_SCHEMA)
            .column("name", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Struct bad = numeric.row(3, 42L);
    fixture.produce(InputShape.ENVELOPE, numeric.create(bad));
    Struct bob = events.row(2, "bob");
    fixture.produce(InputShape.ENVELOPE, events.create(bob));

    fixture.awaitRows("dlq_rows", List.of(values(1, "ann"), values(2, "bob")));
    List<String> reasons = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              reasons.clear();
              for (ConsumerRecord<byte[], byte[]> record :
                  fixture.connect.kafka().consume(2, 10_000, "dlq-out")) {
                Header header = record.headers().lastHeader("__connect.errors.exception.message");
                reasons.add(new String(header.value(), StandardCharsets.UTF_8));
              }
              assertThat(reasons).hasSize(2);
            });
    assertThat(reasons.get(0)).contains("server1.public.dlq-0@1").contains("not a struct");
    assertThat(reasons.get(1))
        .contains("server1.public.dlq-0@2")
        .contains("lake.dlq_rows")
        .contains("name");
    fixture.connect.deleteConnector("dlq");
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void withoutToleranceTheTaskFailsNamingRecordTableAndField(InputShape shape) {
    String table = named("strict", shape);
    DebeziumTable events = customers("server1.public." + table, table);
    fixture.startConnector(
        named("strict", shape), fixture.routedConfig(shape, table, events.topic()));

    Struct ann = events.row(1, "ann");
    fixture.produce(shape, events.create(ann));
    DebeziumTable numeric =
        DebeziumTable.builder(table)
            .topic(events.topic())
            .firstLsn(9000)
            .key("id", Schema.INT32_SCHEMA)
            .column("name", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Struct bad = numeric.row(2, 42L);
    fixture.produce(shape, numeric.create(bad));

    String trace = fixture.awaitTaskFailure(named("strict", shape));
    assertThat(trace)
        .contains("server1.public." + table + "-0@1")
        .contains("lake." + table)
        .contains("field 'name'");
    fixture.awaitRows(table, List.of(values(1, "ann")));
    fixture.connect.deleteConnector(named("strict", shape));
  }
}
