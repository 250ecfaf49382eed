package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.fixtures.AllTypesTable;
import io.changelake.e2e.registry.ApicurioRegistry;
import io.changelake.lsm.testing.LakeTableReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenario 7: the same PostgreSQL table captured twice, by a Debezium connector writing JSON and by
 * one writing Avro through Apicurio Registry in Confluent's wire format, each read by its own
 * Changelake sink (the Avro one with the same Avro converter). The Avro-fed table equals the
 * database row by row, and it equals the JSON-fed table exactly: same Paimon column types and
 * nullability, same primary key, same values — after the snapshot, after streamed inserts, updates
 * and deletes, and after a schema change (a column added, int widened to bigint).
 *
 * <p>One difference comes from Kafka, not from the sink, and is pinned here so the README stays
 * true: Kafka's {@code JsonConverter} writes NaN and ±Infinity of {@code real}/{@code double
 * precision} columns as JSON strings ({@code "NaN"}) and reads those strings back as 0.0, without
 * an error, so a JSON-fed table holds 0.0 where the database holds NaN or ±Infinity; Avro's IEEE
 * floats keep them. A separate table ({@code float_specials}) shows both, so the all-types
 * comparison above stays exact.
 */
class AvroTest extends PipelineTestBase {
  private static final String DB = "s7";
  private static final String JSON = "s7json";
  private static final String AVRO = "s7avro";
  private static final String TABLE = AllTypesTable.TABLE;
  private static final String FLOATS = "float_specials";

  /**
   * The sink's bookkeeping columns say where a row came from (the source position: the LSN each
   * connector's snapshot started at, which differs between the two connectors; the Kafka offset in
   * its own topic): their types are compared, their values are not.
   */
  private static final String INTERNAL_PREFIX = "_changelake_";

  private static final String[] CONNECTORS = {
    JSON + "-pg", JSON + "-sink", AVRO + "-pg", AVRO + "-sink"
  };

  static ApicurioRegistry registry;

  /**
   * Hides {@link PipelineTestBase#startPlatform} (JUnit then runs only this one) so the registry
   * JVM boots while PostgreSQL and Connect start, instead of after them.
   */
  @BeforeAll
  static void startPlatform() {
    registry = ApicurioRegistry.launch(tempDir("apicurio-"));
    PipelineTestBase.startPlatform();
    registry.awaitReady(Duration.ofSeconds(120));
  }

  private static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  static void stopRegistry() {
    if (registry != null) {
      registry.close();
    }
  }

  @Test
  void avroThroughTheRegistryGivesTheSameTableAsJson() {
    createDatabase(DB);
    AllTypesTable.create(pg, DB);
    AllTypesTable.insert(pg, DB, 1, 60);
    pg.execute(
        DB,
        "CREATE TABLE " + FLOATS + " (id int PRIMARY KEY, r real, d double precision)",
        "INSERT INTO "
            + FLOATS
            + " VALUES (1, 'NaN', 'Infinity'), (2, '-Infinity', 'NaN'),"
            + " (3, 1.5, -0.0), (4, NULL, 2.5e-300)");

    String tables = "public." + TABLE + ",public." + FLOATS;
    connect.deploy(JSON + "-pg", DebeziumPostgres.config(pg, DB, JSON, tables), 1);
    Map<String, String> avroSource = new HashMap<>(DebeziumPostgres.config(pg, DB, AVRO, tables));
    avroSource.putAll(registry.avroConverters());
    connect.deploy(AVRO + "-pg", avroSource, 1);

    connect.deploy(JSON + "-sink", ChangelakeConnectors.sink(warehouse, JSON + "\\..*", JSON), 1);
    Map<String, String> avroSink =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, AVRO + "\\..*", AVRO));
    avroSink.putAll(registry.avroConverters());
    connect.deploy(AVRO + "-sink", avroSink, 1);

    awaitLakeEquals(AVRO, TABLE);
    awaitLakeEquals(JSON, TABLE);
    String avroTopic = AVRO + ".public." + TABLE;
    WireSchema before = assertConfluentWireFormat(connect.readAll(avroTopic, false).get(0));

    AllTypesTable.insert(pg, DB, 61, 140);
    pg.execute(
        DB,
        "UPDATE all_types SET c_text = c_text || ' updated', c_numeric = -c_numeric,"
            + " c_numeric_free = c_numeric_free * 3, c_int_array = c_int_array || 42,"
            + " c_jsonb = c_jsonb || '{\"u\": 1}', c_enum = 'happy' WHERE id % 10 = 3",
        "UPDATE all_types SET c_timestamptz = NULL, c_bytea = NULL, c_text_array = NULL"
            + " WHERE id = 61",
        "DELETE FROM all_types WHERE id % 11 = 5",
        "INSERT INTO " + FLOATS + " VALUES (5, 'Infinity', '-Infinity')",
        "UPDATE " + FLOATS + " SET r = 'NaN' WHERE id = 3");

    awaitLakeEquals(AVRO, TABLE);
    awaitLakeEquals(JSON, TABLE);
    assertSameLakeTables(JSON, AVRO);

    // a schema change mid-stream: the Avro value schema changes, so a new schema (new id) is
    // registered and the sink reads records of both schemas (checked on the bytes below)
    pg.execute(
        DB,
        "ALTER TABLE all_types ADD COLUMN c_added numeric(8,2)",
        "ALTER TABLE all_types ALTER COLUMN c_integer TYPE bigint",
        AllTypesTable.insertSql(141, 160),
        "UPDATE all_types SET c_added = id * 0.25, c_integer = c_integer + 3000000000"
            + " WHERE id % 4 = 1",
        "DELETE FROM all_types WHERE id % 13 = 6");
    awaitLakeEquals(AVRO, TABLE);
    awaitLakeEquals(JSON, TABLE);
    assertSameLakeTables(JSON, AVRO);
    WireSchema after = assertConfluentWireFormat(lastChangeEvent(avroTopic));
    assertThat(after.id()).as("schema id after the schema change").isNotEqualTo(before.id());
    assertThat(after.schema().toString()).contains("\"c_added\"");

    awaitLakeEquals(AVRO, FLOATS);
    awaitJsonLosesNonFiniteFloats();
  }

  /** Waits until Paimon table {@code lakeDatabase.table} equals the PostgreSQL table. */
  private static void awaitLakeEquals(String lakeDatabase, String table) {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, DB, "public", table),
        lakeTable(lakeDatabase, table),
        CATCH_UP,
        () -> connect.failure(CONNECTORS));
  }

  /**
   * The JSON-fed {@code float_specials} equals the database except that NaN and ±Infinity became
   * 0.0 (see the class comment): Kafka's JsonConverter loses them before the sink sees the record.
   */
  private static void awaitJsonLosesNonFiniteFloats() {
    List<String> expected = new ArrayList<>();
    for (Map<String, Object> row : DbTableReader.read(pg, DB, "public", FLOATS).rows()) {
      expected.add(row.get("id") + " " + afterJson(row.get("r")) + " " + afterJson(row.get("d")));
    }
    assertThat(expected).as("the database has non-finite values").anyMatch(r -> r.contains(" 0.0"));
    Awaitility.await()
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              assertThat(connect.failure(CONNECTORS)).isNull();
              List<String> lake = new ArrayList<>();
              for (Map<String, Object> row : lakeTable(JSON, FLOATS).read()) {
                lake.add(row.get("id") + " " + row.get("r") + " " + row.get("d"));
              }
              assertThat(lake)
                  .as("JSON-fed " + FLOATS + " (id r d)")
                  .containsExactlyInAnyOrderElementsOf(expected);
            });
  }

  /** A float or double as it arrives through Kafka's JsonConverter: non-finite values as 0.0. */
  private static Object afterJson(Object value) {
    if (value instanceof Float f) {
      return f.isNaN() || f.isInfinite() ? 0.0f : f;
    }
    if (value instanceof Double d) {
      return d.isNaN() || d.isInfinite() ? 0.0d : d;
    }
    return value;
  }

  /**
   * The record's key and value bytes are Confluent's wire format — magic byte 0, then a 4-byte
   * big-endian schema id — and each id resolves through the registry's Confluent-compatible API to
   * Debezium's key or envelope schema, which this returns.
   */
  private static WireSchema assertConfluentWireFormat(ConsumerRecord<byte[], byte[]> record) {
    String where = record.topic() + "@" + record.offset();
    assertThat(wireSchema(record.key(), where + " key").name()).isEqualTo("Key");
    WireSchema value = wireSchema(record.value(), where + " value");
    assertThat(value.name()).isEqualTo("Envelope");
    return value;
  }

  /** A schema id read from Confluent-framed bytes, and the Avro schema the registry has for it. */
  private record WireSchema(int id, JsonNode schema) {
    String name() {
      return schema.path("name").asText();
    }
  }

  private static WireSchema wireSchema(byte[] bytes, String what) {
    assertThat(bytes).as(what).hasSizeGreaterThan(5);
    assertThat(bytes[0]).as(what + ": Confluent magic byte").isZero();
    int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
    JsonNode schema = registry.confluentSchemaById(id);
    assertThat(schema).as(what + ": schema id " + id + " in the registry").isNotNull();
    assertThat(schema.path("type").asText()).as(what + ": schema " + schema).isEqualTo("record");
    return new WireSchema(id, schema);
  }

  /** The newest record of {@code topic} that is not a tombstone. */
  private static ConsumerRecord<byte[], byte[]> lastChangeEvent(String topic) {
    List<ConsumerRecord<byte[], byte[]>> records = connect.readAll(topic, false);
    for (int i = records.size() - 1; i >= 0; i--) {
      if (records.get(i).value() != null) {
        return records.get(i);
      }
    }
    throw new AssertionError("no change event in " + topic);
  }

  /**
   * Both lake tables have the same primary key, the same columns with the same Paimon types and
   * nullability, and the same rows with exactly the same values in every column but the sink's
   * bookkeeping ones (no normalisation: the two tables were written by the same sink from the same
   * change events).
   */
  private static void assertSameLakeTables(String expectedDatabase, String actualDatabase) {
    Map<String, String> catalog = LakeTableReader.fileWarehouse(warehouse);
    assertThat(LakeTableReader.schema(catalog, actualDatabase, TABLE))
        .as("schema of the Avro-fed table, compared with the JSON-fed one")
        .isEqualTo(LakeTableReader.schema(catalog, expectedDatabase, TABLE));

    Map<Object, Map<String, Object>> expected = byId(catalog, expectedDatabase);
    Map<Object, Map<String, Object>> actual = byId(catalog, actualDatabase);
    assertThat(actual.keySet()).as("keys of the Avro-fed table").isEqualTo(expected.keySet());
    List<String> diffs = new ArrayList<>();
    expected.forEach(
        (id, row) ->
            row.forEach(
                (column, value) -> {
                  if (column.startsWith(INTERNAL_PREFIX)) {
                    return;
                  }
                  Object other = actual.get(id).get(column);
                  if (!Objects.equals(value, other)) {
                    diffs.add(
                        "id " + id + " column " + column + ": JSON " + value + ", Avro " + other);
                  }
                }));
    assertThat(diffs).as("values differing between the JSON- and the Avro-fed table").isEmpty();
  }

  private static Map<Object, Map<String, Object>> byId(
      Map<String, String> catalog, String database) {
    Map<Object, Map<String, Object>> rows = new TreeMap<>();
    for (Map<String, Object> row : LakeTableReader.read(catalog, database, TABLE)) {
      Map<String, Object> values = new LinkedHashMap<>();
      row.forEach((k, v) -> values.put(k, comparable(v)));
      rows.put(row.get("id"), values);
    }
    return rows;
  }

  /** Byte arrays as hex (arrays have no value equality), inside lists and maps too. */
  private static Object comparable(Object v) {
    if (v instanceof byte[] b) {
      return HexFormat.of().formatHex(b);
    }
    if (v instanceof List<?> list) {
      return list.stream().map(AvroTest::comparable).toList();
    }
    if (v instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, e) -> out.put(comparable(k), comparable(e)));
      return out;
    }
    return v;
  }
}
