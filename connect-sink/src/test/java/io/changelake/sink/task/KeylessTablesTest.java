package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records without a key (a source table without primary key, REPLICA IDENTITY FULL): by default an
 * append-only table of the changes, or a primary-key table on configured columns; either way the
 * keyed topic next to it is written as usual.
 */
class KeylessTablesTest {
  static final Schema ROW =
      SchemaBuilder.struct()
          .optional()
          .field("id", Schema.INT32_SCHEMA)
          .field("note", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
  static final Schema SOURCE =
      SchemaBuilder.struct()
          .field("db", Schema.STRING_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("lsn", Schema.INT64_SCHEMA)
          .build();
  static final Schema ENVELOPE =
      SchemaBuilder.struct()
          .name("shop.Envelope")
          .field("before", ROW)
          .field("after", ROW)
          .field("source", SOURCE)
          .field("op", Schema.STRING_SCHEMA)
          .build();
  static final TopicPartition KEYLESS = new TopicPartition("shop.public.log", 0);
  static final TopicPartition KEYED = new TopicPartition("shop.public.items", 0);

  @TempDir Path tmp;

  Map<String, String> props() {
    Map<String, String> props = new HashMap<>();
    props.put("name", "keyless-sink");
    props.put("paimon.warehouse", tmp.resolve("warehouse").toUri().toString());
    props.put("writer.spill.dir", tmp.resolve("spill").toString());
    props.put("route.database", "lake");
    props.put("route.table.format", "${source.table}");
    props.put("table.buckets", "1");
    props.put("commit.interval.ms", "3600000");
    props.put("compaction.interval.ms", "0");
    return props;
  }

  static Struct row(int id, String note) {
    return new Struct(ROW).put("id", id).put("note", note);
  }

  /** A Debezium envelope of table {@code table}; keyless tables get a null key. */
  static SinkRecord record(
      TopicPartition tp, String op, Struct before, Struct after, long offset, boolean keyed) {
    String table = tp.topic().substring(tp.topic().lastIndexOf('.') + 1);
    Struct source =
        new Struct(SOURCE).put("db", "shop").put("table", table).put("lsn", 5000L + offset);
    Struct value =
        new Struct(ENVELOPE)
            .put("before", before)
            .put("after", after)
            .put("source", source)
            .put("op", op);
    Struct anyRow = after != null ? after : before;
    return new SinkRecord(
        tp.topic(),
        tp.partition(),
        keyed ? KEY : null,
        keyed ? new Struct(KEY).put("id", anyRow.getInt32("id")) : null,
        ENVELOPE,
        value,
        offset);
  }

  /** Inserts 1 and 2, updates 1, deletes 2: on the keyless topic and on the keyed one. */
  static List<SinkRecord> changes() {
    List<SinkRecord> records = new ArrayList<>();
    for (TopicPartition tp : List.of(KEYLESS, KEYED)) {
      boolean keyed = tp.equals(KEYED);
      records.add(record(tp, "c", null, row(1, "one"), 0, keyed));
      records.add(record(tp, "c", null, row(2, "two"), 1, keyed));
      records.add(record(tp, "u", row(1, "one"), row(1, "one!"), 2, keyed));
      records.add(record(tp, "d", row(2, "two"), null, 3, keyed));
    }
    return records;
  }

  private void run(Map<String, String> props) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props);
    try {
      task.open(List.of(KEYLESS, KEYED));
      task.put(changes());
      task.preCommit(Map.of());
      task.close(List.of(KEYLESS, KEYED));
    } finally {
      task.stop();
    }
  }

  private FileStoreTable table(Catalog catalog, String name) throws Exception {
    return (FileStoreTable) catalog.getTable(Identifier.create("lake", name));
  }

  @Test
  void aKeylessTopicBecomesAnAppendOnlyTableOfItsChangesAndTheKeyedTopicIsWrittenAsUsual()
      throws Exception {
    run(props());
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

  @Test
  void aKeylessTopicWithAConfiguredPrimaryKeyMirrorsItsSourceTable() throws Exception {
    Map<String, String> props = props();
    props.put("table.log.primary-key-fields", "id");
    run(props);
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

  @Test
  void keylessModeFailRefusesTheRecordNamingTheSettings() {
    Map<String, String> props = props();
    props.put("table.log.keyless-mode", "fail");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> run(props))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("shop.public.log-0@0")
        .hasMessageContaining("lake.log")
        .hasMessageContaining("table.log.primary-key-fields")
        .hasMessageContaining("keyless-mode=append");
  }
}
