package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.sink.testing.InputShapes;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Records without a key (a source table without primary key, REPLICA IDENTITY FULL): by default an
 * append-only table of the changes, or a primary-key table on configured columns; either way the
 * keyed topic next to it is written as usual.
 */
class KeylessTablesTest {
  /** Table {@code table}: keyed by id, or (a table without primary key) not keyed at all. */
  static DebeziumTable table(String table, boolean keyed) {
    DebeziumTable.Builder builder = DebeziumTable.builder(table).server("shop");
    if (keyed) {
      builder.key("id", Schema.INT32_SCHEMA);
    } else {
      builder.column("id", Schema.INT32_SCHEMA);
    }
    return builder.column("note", Schema.OPTIONAL_STRING_SCHEMA).build();
  }

  static final TopicPartition KEYLESS = new TopicPartition("shop.public.log", 0);
  static final TopicPartition KEYED = new TopicPartition("shop.public.items", 0);

  @TempDir Path tmp;

  Map<String, String> props(InputShape shape) {
    Map<String, String> props = props();
    props.putAll(InputShapes.sinkConfig(shape));
    return props;
  }

  Map<String, String> props() {
    Map<String, String> props = new HashMap<>();
    props.put("name", "keyless-sink");
    props.put("paimon.warehouse", tmp.resolve("warehouse").toUri().toString());
    // every batch on the pipeline thread, as under load (the default leaves small ones in put)
    props.put("pipeline.thread.min.records", "1");
    props.put("writer.spill.dir", tmp.resolve("spill").toString());
    props.put("route.database", "lake");
    props.put("route.table.format", "${source.table}");
    props.put("table.buckets", "1");
    props.put("commit.interval.ms", "3600000");
    props.put("compaction.interval.ms", "0");
    return props;
  }

  /**
   * Inserts 1 and 2, updates 1, deletes 2: on the keyless topic and on the keyed one (REPLICA
   * IDENTITY FULL: with before images).
   */
  static List<SinkRecord> changes(InputShape shape) {
    List<SinkRecord> records = new ArrayList<>();
    for (TopicPartition tp : List.of(KEYLESS, KEYED)) {
      DebeziumTable t = table(tp.topic().substring(tp.topic().lastIndexOf('.') + 1), tp == KEYED);
      List<Change> changes =
          List.of(
              t.create(t.row(1, "one")),
              t.create(t.row(2, "two")),
              t.update(t.row(1, "one"), t.row(1, "one!")),
              t.delete(t.row(2, "two")));
      for (int offset = 0; offset < changes.size(); offset++) {
        records.add(
            changes.get(offset).atLsn(5000L + offset).toSinkRecord(shape, tp.partition(), offset));
      }
    }
    return records;
  }

  private void run(InputShape shape, Map<String, String> props) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props);
    try {
      task.open(List.of(KEYLESS, KEYED));
      task.put(changes(shape));
      task.preCommit(Map.of());
      task.close(List.of(KEYLESS, KEYED));
    } finally {
      task.stop();
    }
  }

  private FileStoreTable table(Catalog catalog, String name) throws Exception {
    return (FileStoreTable) catalog.getTable(Identifier.create("lake", name));
  }

  // keyless deletes need their row: envelopes, or flattened rows with rewritten deletes (at the
  // transform's defaults a keyless delete is a tombstone without key, nothing to read)
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_REWRITE"})
  void aKeylessTopicBecomesAnAppendOnlyTableOfItsChangesAndTheKeyedTopicIsWrittenAsUsual(
      InputShape shape) throws Exception {
    run(shape, props(shape));
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      FileStoreTable log = table(catalog, "log");
      assertThat(log.primaryKeys()).isEmpty();
      assertThat(log.rowType().getFieldNames())
          .containsExactly(
              "id",
              "note",
              "_changelake_op",
              "_changelake_source_position",
              "_changelake_kafka_offset");
      // a delete is a row too: the before image, op d
      assertThat(LakeRows.read(log))
          .containsExactlyInAnyOrder(
              values(1, "one", "c", 5000L, 0L),
              values(2, "two", "c", 5001L, 1L),
              values(1, "one!", "u", 5002L, 2L),
              values(2, "two", "d", 5003L, 3L));
      assertThat(LakeRows.read(table(catalog, "items")))
          .extracting(r -> r.subList(0, 2))
          .containsExactly(values(1, "one!"));
    }
  }

  // keyless deletes need their row: envelopes, or flattened rows with rewritten deletes (at the
  // transform's defaults a keyless delete is a tombstone without key, nothing to read)
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_REWRITE"})
  void aKeylessTopicWithAConfiguredPrimaryKeyMirrorsItsSourceTable(InputShape shape)
      throws Exception {
    Map<String, String> props = props(shape);
    props.put("table.log.primary-key-fields", "id");
    run(shape, props);
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      FileStoreTable log = table(catalog, "log");
      assertThat(log.primaryKeys()).containsExactly("id");
      assertThat(LakeRows.read(log))
          .extracting(r -> r.subList(0, 2))
          .containsExactly(values(1, "one!"));
      assertThat(LakeRows.read(table(catalog, "items")))
          .extracting(r -> r.subList(0, 2))
          .containsExactly(values(1, "one!"));
    }
  }

  // keyless deletes need their row: envelopes, or flattened rows with rewritten deletes (at the
  // transform's defaults a keyless delete is a tombstone without key, nothing to read)
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_REWRITE"})
  void keylessModeFailRefusesTheRecordNamingTheSettings(InputShape shape) {
    Map<String, String> props = props(shape);
    props.put("table.log.keyless-mode", "fail");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> run(shape, props))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("shop.public.log-0@0")
        .hasMessageContaining("lake.log")
        .hasMessageContaining("table.log.primary-key-fields")
        .hasMessageContaining("keyless-mode=append");
  }
}
