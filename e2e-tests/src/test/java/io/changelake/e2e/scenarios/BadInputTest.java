package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import io.changelake.testkit.JsonRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Scenario 11: bad records in a CDC topic — bytes that are not JSON, a value that is not a change
 * event, a null key for a keyed table, an incompatible type change — next to a huge but valid
 * value. With a dead-letter queue each bad record lands there with its reason and the good data
 * stays intact; with {@code errors.tolerance=none} the task fails with a trace naming topic,
 * partition, offset and field, and what came before the bad record is kept.
 */
class BadInputTest extends PipelineTestBase {
  private static final String TOPIC = "s11.public.goods";

  @Test
  void badRecordsGoToTheDeadLetterQueueWithReasonsAndGoodDataStaysIntact() throws Exception {
    createDatabase("s11");
    pg.execute(
        "s11",
        "CREATE TABLE goods (id int PRIMARY KEY, qty int, label text)",
        "INSERT INTO goods SELECT i, i, 'g' || i FROM generate_series(1, 50) i");
    connect.deploy(
        "s11-pg",
        io.changelake.e2e.connect.DebeziumPostgres.config(pg, "s11", "s11", "public.goods"),
        1);
    ConsumerRecord<byte[], byte[]> template = awaitFirstRecord(TOPIC);

    List<Long> badOffsets = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      badOffsets.add(send(producer, TOPIC, template.key(), bytes("\u0000not json {")));
      badOffsets.add(
          send(
              producer,
              TOPIC,
              template.key(),
              bytes("{\"schema\":{\"type\":\"string\"},\"payload\":\"hi\"}")));
      // a delete without key and without before image: nothing says which row it deletes
      badOffsets.add(send(producer, keylessDelete("s11")));
      badOffsets.add(send(producer, qtyAsText("s11")));
    }
    pg.execute(
        "s11",
        // a huge but valid value: must arrive intact, not be dead-lettered
        "INSERT INTO goods VALUES (500, 1, repeat('huge-', 140000))",
        "INSERT INTO goods SELECT i, i, 'g' || i FROM generate_series(51, 100) i",
        // (the huge row is not updated: its TOASTed label would not be resent, scenario 2's topic)
        "UPDATE goods SET qty = qty + 1 WHERE id % 4 = 0 AND id < 500",
        "DELETE FROM goods WHERE id % 9 = 0");

    Map<String, String> sink =
        ChangelakeConnectors.withDeadLetterQueue(
            ChangelakeConnectors.sink(warehouse, Pattern.quote(TOPIC), "s11"), "s11-dlq");
    connect.deploy("s11-sink", sink, 1);
    awaitLakeEqualsDatabase("s11", "goods");

    List<ConsumerRecord<byte[], byte[]>> dead = awaitRecords("s11-dlq", badOffsets.size());
    assertThat(dead)
        .as("every bad record, and only those, is dead-lettered with its origin and reason")
        .hasSize(badOffsets.size())
        .allSatisfy(
            r -> {
              assertThat(header(r, "__connect.errors.topic")).isEqualTo(TOPIC);
              assertThat(header(r, "__connect.errors.exception.message")).isNotBlank();
            });
    assertThat(dead)
        .extracting(r -> Long.parseLong(header(r, "__connect.errors.offset")))
        .containsExactlyInAnyOrderElementsOf(badOffsets);
    // the reasons the sink gives, exactly: where the record came from, and what is wrong with it
    assertThat(reasonAt(dead, badOffsets.get(0)))
        .as("bytes that are not JSON fail in Connect's converter, before the sink")
        .startsWith("Converting byte[] to Kafka Connect data failed due to serialization error");
    assertThat(reasonAt(dead, badOffsets.get(1)))
        .isEqualTo(
            "Cannot write record "
                + TOPIC
                + "-0@"
                + badOffsets.get(1)
                + ": The value is not a struct; the value converter must produce structs"
                + " (JsonConverter with schemas.enable=true, Avro)");
    assertThat(reasonAt(dead, badOffsets.get(2)))
        .isEqualTo(
            "Cannot write record "
                + TOPIC
                + "-0@"
                + badOffsets.get(2)
                + ": A 'd' event without 'before' or a struct key");
    assertThat(reasonAt(dead, badOffsets.get(3)))
        .startsWith(
            "Cannot write record " + TOPIC + "-0@" + badOffsets.get(3) + " to table s11.goods")
        .contains("'qty'");
    assertThat(connect.cluster().connectorStatus("s11-sink").tasks())
        .allSatisfy(t -> assertThat(t.state()).isEqualTo("RUNNING"));
  }

  @Test
  void withoutToleranceTheTaskFailsNamingTopicPartitionOffsetAndField() throws Exception {
    String topic = "s11strict.public.goods";
    connect.createTopic(topic, 1);
    createDatabase("s11strict");
    pg.execute(
        "s11strict",
        "CREATE TABLE goods (id int PRIMARY KEY, qty int, label text)",
        "INSERT INTO goods SELECT i, i, 'g' || i FROM generate_series(1, 5) i");
    connect.deploy(
        "s11strict-pg",
        io.changelake.e2e.connect.DebeziumPostgres.config(
            pg, "s11strict", "s11strict", "public.goods"),
        1);
    awaitRecords(topic, 5);
    long badOffset;
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      badOffset = send(producer, qtyAsText("s11strict"));
    }
    pg.execute("s11strict", "INSERT INTO goods VALUES (6, 6, 'after the bad record')");

    Map<String, String> sink =
        ChangelakeConnectors.sink(warehouse, Pattern.quote(topic), "s11strict");
    sink.put("errors.tolerance", "none");
    connect.cluster().configureConnector("s11strict-sink", sink);
    Awaitility.await()
        .atMost(Duration.ofSeconds(90))
        // the status exists only once the worker has started the connector
        .ignoreException(org.apache.kafka.connect.runtime.rest.errors.ConnectRestException.class)
        .untilAsserted(
            () ->
                assertThat(connect.cluster().connectorStatus("s11strict-sink").tasks())
                    .extracting(ConnectorStateInfo.TaskState::state)
                    .containsExactly("FAILED"));
    String trace = connect.cluster().connectorStatus("s11strict-sink").tasks().get(0).trace();
    assertThat(trace)
        .as("the task's error: topic, partition, offset, table and field on one line")
        .containsPattern(
            Pattern.quote(
                    "Cannot write record "
                        + topic
                        + "-0@"
                        + badOffset
                        + " to table s11strict.goods")
                + "[^\n]*'qty'");

    List<Map<String, Object>> rows =
        LakeTableReader.read(
            io.changelake.lsm.testing.LakeTableReader.fileWarehouse(warehouse),
            "s11strict",
            "goods");
    assertThat(rows)
        .as("rows before the bad record are kept")
        .extracting(r -> ((Number) r.get("id")).intValue())
        .containsExactlyInAnyOrder(1, 2, 3, 4, 5);
  }

  private static ConsumerRecord<byte[], byte[]> awaitFirstRecord(String topic) {
    return awaitRecords(topic, 1).get(0);
  }

  private static List<ConsumerRecord<byte[], byte[]>> awaitRecords(String topic, int atLeast) {
    List<List<ConsumerRecord<byte[], byte[]>>> holder = new ArrayList<>();
    Awaitility.await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              List<ConsumerRecord<byte[], byte[]>> records = connect.readAll(topic, false);
              assertThat(records).hasSizeGreaterThanOrEqualTo(atLeast);
              holder.add(records);
            });
    return holder.get(holder.size() - 1);
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> props = new HashMap<>();
    props.put("bootstrap.servers", connect.bootstrapServers());
    props.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
    props.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
    return new KafkaProducer<>(props);
  }

  private static long send(KafkaProducer<byte[], byte[]> p, String topic, byte[] key, byte[] value)
      throws Exception {
    RecordMetadata m = p.send(new ProducerRecord<>(topic, 0, key, value)).get();
    return m.offset();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static long send(KafkaProducer<byte[], byte[]> p, JsonRecord record) throws Exception {
    return send(p, record.topic(), record.key(), record.value());
  }

  /**
   * Table goods as Debezium's connector {@code server} describes it, with qty of type {@code qty}.
   */
  private static DebeziumTable goods(String server, Schema qty) {
    return DebeziumTable.builder("goods")
        .server(server)
        .database(server)
        .key("id", Schema.INT32_SCHEMA)
        .column("qty", qty)
        .column("label", Schema.OPTIONAL_STRING_SCHEMA)
        .build();
  }

  /** A delete without key and without before image: nothing says which row it deletes. */
  private static JsonRecord keylessDelete(String server) {
    DebeziumTable goods = goods(server, Schema.OPTIONAL_INT32_SCHEMA);
    return new Change(goods, DebeziumOp.DELETE, null, null, null, 30_000_000L, 0L, null)
        .json(InputShape.ENVELOPE)
        .orElseThrow();
  }

  /** A create of id 9002 whose column qty is suddenly a string: an incompatible type change. */
  private static JsonRecord qtyAsText(String server) {
    DebeziumTable goods = goods(server, Schema.OPTIONAL_STRING_SCHEMA);
    return goods.create(goods.row(9002, "many", "g9002")).json(InputShape.ENVELOPE).orElseThrow();
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** The exception message the dead-letter record for {@code offset} carries (not its trace). */
  private static String reasonAt(List<ConsumerRecord<byte[], byte[]>> dead, long offset) {
    return dead.stream()
        .filter(r -> Long.parseLong(header(r, "__connect.errors.offset")) == offset)
        .map(r -> header(r, "__connect.errors.exception.message"))
        .findFirst()
        .orElseThrow();
  }
}
