package io.changelake.sink.it;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.changelake.sink.task.SequenceColumns;
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

  static DebeziumEvents customers(String topic, String table) {
    fixture.connect.kafka().createTopic(topic, 1);
    return new DebeziumEvents(
        topic, table, 1000, "id", Schema.INT32_SCHEMA, "name", Schema.OPTIONAL_STRING_SCHEMA);
  }

  @Test
  void deduplicateTableMirrorsInsertsUpdatesAndDeletes() {
    DebeziumEvents events = customers("server1.public.customers", "customers");
    fixture.startConnector(
        "dedup", fixture.sinkConfig(events.topic, "route.table.format", "${source.table}"));

    Struct ann = events.row(1, "ann");
    Struct bob = events.row(2, "bob");
    fixture.produce(events, events.keyOf(ann), events.read(ann));
    fixture.produce(events, events.keyOf(bob), events.create(bob));
    // PostgreSQL's default replica identity: no before image
    fixture.produce(events, events.keyOf(ann), events.update(null, events.row(1, "ann2")));
    // a delete whose before image holds the key only, then Debezium's tombstone
    fixture.produce(events, events.keyOf(bob), events.delete(events.row(2, null)));
    fixture.produce(events, events.keyOf(bob), null);
    Struct cid = events.row(3, "cid");
    fixture.produce(events, events.keyOf(cid), events.create(cid));
    fixture.produce(events, events.keyOf(cid), events.update(cid, events.row(3, null)));

    fixture.awaitRows("customers", List.of(values(1, "ann2"), values(3, null)));
    assertThat(fixture.columns("customers"))
        .containsExactly(
            "id", "name", SequenceColumns.SOURCE_POSITION, SequenceColumns.KAFKA_OFFSET);
    fixture.connect.deleteConnector("dedup");
  }

  @Test
  void topicsRegexCreatesTablesForNewTopicsWithoutRestart() {
    DebeziumEvents orders = customers("live.public.orders", "orders");
    Struct order = orders.row(1, "first");
    Map<String, String> config =
        fixture.sinkConfig(
            "", "route.table.format", "${source.table}", "topics.regex", "live\\.public\\..*");
    config.remove("topics");
    fixture.startConnector("live", config);
    fixture.produce(orders, orders.keyOf(order), orders.create(order));
    fixture.awaitRows("orders", List.of(values(1, "first")));

    DebeziumEvents invoices = customers("live.public.invoices", "invoices");
    Struct invoice = invoices.row(7, "new table");
    fixture.produce(invoices, invoices.keyOf(invoice), invoices.create(invoice));

    fixture.awaitRows("invoices", List.of(values(7, "new table")));
    fixture.connect.deleteConnector("live");
  }

  @Test
  void partialUpdateFillsOneWideTableFromTwoTopics() {
    fixture.connect.kafka().createTopic("server1.public.profile", 1);
    fixture.connect.kafka().createTopic("server1.public.score", 1);
    DebeziumEvents profile =
        new DebeziumEvents(
            "server1.public.profile",
            "profile",
            1000,
            "id",
            Schema.INT32_SCHEMA,
            "name",
            Schema.OPTIONAL_STRING_SCHEMA,
            "email",
            Schema.OPTIONAL_STRING_SCHEMA);
    DebeziumEvents score =
        new DebeziumEvents(
            "server1.public.score",
            "score",
            5000,
            "id",
            Schema.INT32_SCHEMA,
            "score",
            Schema.OPTIONAL_INT64_SCHEMA);
    fixture.startConnector(
        "wide",
        fixture.sinkConfig(
            profile.topic + "," + score.topic,
            "route.table.format",
            "customer_wide",
            "table.customer_wide.merge-engine",
            "partial-update",
            "table.customer_wide.delete-policy",
            "remove-row"));

    Struct ann = profile.row(1, "ann", "ann@example.com");
    Struct bob = profile.row(2, "bob", "bob@example.com");
    fixture.produce(profile, profile.keyOf(ann), profile.create(ann));
    fixture.produce(profile, profile.keyOf(bob), profile.create(bob));
    fixture.awaitRows(
        "customer_wide",
        List.of(values(1, "ann", "ann@example.com"), values(2, "bob", "bob@example.com")));

    Struct annScore = score.row(1, 10L);
    fixture.produce(score, score.keyOf(annScore), score.create(annScore));
    fixture.produce(score, score.keyOf(annScore), score.update(null, score.row(1, 20L)));
    // an unchanged TOASTed column arrives as Debezium's placeholder: the stored value stays
    fixture.produce(
        profile,
        profile.keyOf(ann),
        profile.update(null, profile.row(1, "ann2", "__debezium_unavailable_value")));

    fixture.awaitRows(
        "customer_wide",
        List.of(
            values(1, "ann2", "ann@example.com", 20L), values(2, "bob", "bob@example.com", null)));

    fixture.produce(profile, profile.keyOf(bob), profile.delete(bob));
    fixture.awaitRows("customer_wide", List.of(values(1, "ann2", "ann@example.com", 20L)));
    fixture.connect.deleteConnector("wide");
  }

  @Test
  void deduplicateKeepsToastedValuesFromTheBeforeImage() {
    DebeziumEvents events = customers("server1.public.docs", "docs");
    fixture.startConnector(
        "toast", fixture.sinkConfig(events.topic, "route.table.format", "${source.table}"));

    Struct doc = events.row(1, "long text");
    fixture.produce(events, events.keyOf(doc), events.create(doc));
    // REPLICA IDENTITY FULL: the before image carries the value the after image lacks
    fixture.produce(
        events,
        events.keyOf(doc),
        events.update(doc, events.row(1, "__debezium_unavailable_value")));
    Struct other = events.row(2, "x");
    fixture.produce(events, events.keyOf(other), events.create(other));

    fixture.awaitRows("docs", List.of(values(1, "long text"), values(2, "x")));
    fixture.connect.deleteConnector("toast");
  }

  @Test
  void deduplicateKeepsToastedValuesFromTheStoredRowWithoutABeforeImage() {
    DebeziumEvents events = customers("server1.public.notes", "notes");
    fixture.startConnector(
        "toast-lookup", fixture.sinkConfig(events.topic, "route.table.format", "${source.table}"));

    Struct note = events.row(1, "long text");
    fixture.produce(events, events.keyOf(note), events.create(note));
    // PostgreSQL's default replica identity: no before image, the stored row has the value
    fixture.produce(
        events,
        events.keyOf(note),
        events.update(null, events.row(1, "__debezium_unavailable_value")));
    Struct other = events.row(2, "x");
    fixture.produce(events, events.keyOf(other), events.create(other));

    fixture.awaitRows("notes", List.of(values(1, "long text"), values(2, "x")));
    fixture.connect.deleteConnector("toast-lookup");
  }

  @Test
  void schemaChangeMidStreamAddsTheColumn() {
    DebeziumEvents v1 = customers("server1.public.evolving", "evolving");
    fixture.startConnector(
        "evolve", fixture.sinkConfig(v1.topic, "route.table.format", "${source.table}"));

    Struct ann = v1.row(1, "ann");
    fixture.produce(v1, v1.keyOf(ann), v1.create(ann));
    fixture.awaitRows("evolving", List.of(values(1, "ann")));

    DebeziumEvents v2 = v1.withColumn("email", Schema.OPTIONAL_STRING_SCHEMA);
    Struct bob = v2.row(2, "bob", "bob@example.com");
    fixture.produce(v2, v2.keyOf(bob), v2.create(bob));
    fixture.produce(v2, v2.keyOf(ann), v2.update(null, v2.row(1, "ann", "ann@example.com")));

    fixture.awaitRows(
        "evolving",
        List.of(values(1, "ann", "ann@example.com"), values(2, "bob", "bob@example.com")));
    assertThat(fixture.columns("evolving")).containsSubsequence("id", "name", "email");
    fixture.connect.deleteConnector("evolve");
  }

  @Test
  void theOwningTaskCompactsTheTable() throws Exception {
    DebeziumEvents events = customers("server1.public.compacted", "compacted");
    fixture.startConnector(
        "compact",
        fixture.sinkConfig(
            events.topic,
            "route.table.format",
            "${source.table}",
            "compaction.interval.ms",
            "1000"));

    for (int i = 1; i <= 3; i++) {
      Struct row = events.row(i, "v" + i);
      fixture.produce(events, events.keyOf(row), events.create(row));
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

  @Test
  void truncateDeletesEveryRowByDefault() {
    DebeziumEvents events = customers("server1.public.emptied", "emptied");
    fixture.startConnector(
        "truncate-delete-all",
        fixture.sinkConfig(events.topic, "route.table.format", "${source.table}"));

    Struct ann = events.row(1, "ann");
    fixture.produce(events, events.keyOf(ann), events.create(ann));
    fixture.awaitRows("emptied", List.of(values(1, "ann")));
    Struct bob = events.row(2, "bob");
    fixture.produce(events, events.keyOf(bob), events.create(bob));
    fixture.produce(events, null, events.truncate());
    Struct cid = events.row(3, "cid");
    fixture.produce(events, events.keyOf(cid), events.create(cid));

    fixture.awaitRows("emptied", List.of(values(3, "cid")));
    fixture.connect.deleteConnector("truncate-delete-all");
  }

  @Test
  void truncateIsIgnoredWhenConfigured() {
    DebeziumEvents events = customers("server1.public.truncated", "truncated");
    fixture.startConnector(
        "truncate-ignore",
        fixture.sinkConfig(
            events.topic,
            "route.table.format",
            "${source.table}",
            "table.truncate-policy",
            "ignore"));

    Struct ann = events.row(1, "ann");
    fixture.produce(events, events.keyOf(ann), events.create(ann));
    fixture.produce(events, null, events.truncate());
    Struct bob = events.row(2, "bob");
    fixture.produce(events, events.keyOf(bob), events.create(bob));

    fixture.awaitRows("truncated", List.of(values(1, "ann"), values(2, "bob")));
    fixture.connect.deleteConnector("truncate-ignore");
  }

  @Test
  void truncateFailsTheTaskWhenRefused() {
    DebeziumEvents events = customers("server1.public.notruncate", "notruncate");
    fixture.startConnector(
        "truncate-fail",
        fixture.sinkConfig(
            events.topic,
            "route.table.format",
            "${source.table}",
            "table.truncate-policy",
            "fail"));

    Struct ann = events.row(1, "ann");
    fixture.produce(events, events.keyOf(ann), events.create(ann));
    fixture.produce(events, null, events.truncate());

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
    DebeziumEvents events = customers("server1.public.notruncate2", "notruncate2");
    fixture.startConnector(
        "truncate-fail-tolerant",
        fixture.sinkConfig(
            events.topic,
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
    fixture.produce(events, events.keyOf(ann), events.create(ann));
    fixture.produce(events, null, events.truncate());

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
    DebeziumEvents events = customers("server1.public.dlq", "dlq_rows");
    fixture.startConnector(
        "dlq",
        fixture.sinkConfig(
            events.topic,
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
    fixture.produce(events, events.keyOf(ann), events.create(ann));
    // not a change event at all
    fixture.produce(
        events, events.keyOf(ann), "{\"schema\":{\"type\":\"string\"},\"payload\":\"garbage\"}");
    // 'name' turns from text into a number: refused by schema.evolution.incompatible-type=FAIL
    DebeziumEvents numeric =
        new DebeziumEvents(
            events.topic,
            "dlq_rows",
            9000,
            "id",
            Schema.INT32_SCHEMA,
            "name",
            Schema.OPTIONAL_INT64_SCHEMA);
    Struct bad = numeric.row(3, 42L);
    fixture.produce(numeric, numeric.keyOf(bad), numeric.create(bad));
    Struct bob = events.row(2, "bob");
    fixture.produce(events, events.keyOf(bob), events.create(bob));

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

  @Test
  void withoutToleranceTheTaskFailsNamingRecordTableAndField() {
    DebeziumEvents events = customers("server1.public.strict", "strict");
    fixture.startConnector(
        "strict", fixture.sinkConfig(events.topic, "route.table.format", "${source.table}"));

    Struct ann = events.row(1, "ann");
    fixture.produce(events, events.keyOf(ann), events.create(ann));
    DebeziumEvents numeric =
        new DebeziumEvents(
            events.topic,
            "strict",
            9000,
            "id",
            Schema.INT32_SCHEMA,
            "name",
            Schema.OPTIONAL_INT64_SCHEMA);
    Struct bad = numeric.row(2, 42L);
    fixture.produce(numeric, numeric.keyOf(bad), numeric.create(bad));

    String trace = fixture.awaitTaskFailure("strict");
    assertThat(trace)
        .contains("server1.public.strict-0@1")
        .contains("lake.strict")
        .contains("field 'name'");
    fixture.awaitRows("strict", List.of(values(1, "ann")));
    fixture.connect.deleteConnector("strict");
  }
}
