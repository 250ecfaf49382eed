package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task on real Paimon tables, driven directly: a crash half-way through a commit round that
 * spans two tables must neither double rows in the committed table nor lose those of the other.
 * Sum-aggregating tables make a doubled record visible.
 */
class ChangelakeSinkTaskTest {
  static final TopicPartition PARTITION = new TopicPartition("payments", 0);
  static final Schema KEY = SchemaBuilder.struct().field("account", Schema.INT32_SCHEMA).build();
  static final Schema ROW =
      SchemaBuilder.struct()
          .optional()
          .field("account", Schema.INT32_SCHEMA)
          .field("amount", Schema.OPTIONAL_INT64_SCHEMA)
          .build();
  static final Schema SOURCE =
      SchemaBuilder.struct()
          .field("db", Schema.STRING_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("lsn", Schema.INT64_SCHEMA)
          .build();
  static final Schema ENVELOPE =
      SchemaBuilder.struct()
          .name("payments.Envelope")
          .field("before", ROW)
          .field("after", ROW)
          .field("source", SOURCE)
          .field("op", Schema.STRING_SCHEMA)
          .build();

  @TempDir Path tmp;

  Map<String, String> props() {
    Map<String, String> props = new HashMap<>();
    props.put("name", "payments-sink");
    props.put("paimon.warehouse", tmp.resolve("warehouse").toUri().toString());
    props.put("writer.spill.dir", tmp.resolve("spill").toString());
    props.put("route.database", "lake");
    props.put("route.table.format", "${source.table}");
    props.put("table.merge-engine", "aggregation");
    props.put("table.option.fields.amount.aggregate-function", "sum");
    props.put("table.buckets", "1");
    // commits only when the test says so
    props.put("commit.interval.ms", "3600000");
    props.put("compaction.interval.ms", "0");
    return props;
  }

  /** Offsets 0..n-1: even ones change table t1, odd ones t2, each adding 1 to account 1. */
  static List<SinkRecord> records(int from, int to) {
    List<SinkRecord> records = new ArrayList<>();
    for (int offset = from; offset < to; offset++) {
      Struct source =
          new Struct(SOURCE)
              .put("db", "shop")
              .put("table", offset % 2 == 0 ? "t1" : "t2")
              .put("lsn", 1000L + offset);
      Struct value =
          new Struct(ENVELOPE)
              .put("after", new Struct(ROW).put("account", 1).put("amount", 1L))
              .put("source", source)
              .put("op", "c");
      records.add(
          new SinkRecord(
              PARTITION.topic(),
              PARTITION.partition(),
              KEY,
              new Struct(KEY).put("account", 1),
              ENVELOPE,
              value,
              offset));
    }
    return records;
  }

  List<List<Object>> rows(String table) throws Exception {
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      List<List<Object>> rows = new ArrayList<>();
      for (List<Object> row : LakeRows.read(catalog.getTable(Identifier.create("lake", table)))) {
        rows.add(row.subList(0, 2));
      }
      return rows;
    }
  }

  @Test
  void crashHalfWayThroughACommitRoundNeitherDoublesNorLoses() throws Exception {
    ChangelakeSinkTask crashed = new ChangelakeSinkTask();
    crashed.initialize(new Context());
    crashed.start(props());
    crashed.open(List.of(PARTITION));
    crashed.put(records(0, 10));
    // t1 is committed with positions up to offset 10, then the worker dies before t2 is
    crashed.commitTables(crashed.processedPositions(), id -> id.getObjectName().equals("t1"));
    crashed.stop();
    assertThat(rows("t1")).containsExactly(values(1, 5L));
    assertThat(rows("t2")).isEmpty();

    // Connect never heard of any of it: the next task gets everything again, and two more
    ChangelakeSinkTask next = new ChangelakeSinkTask();
    next.initialize(new Context());
    next.start(props());
    next.open(List.of(PARTITION));
    next.put(records(0, 12));
    Map<TopicPartition, OffsetAndMetadata> reported =
        next.preCommit(Map.of(PARTITION, new OffsetAndMetadata(12)));
    assertThat(reported).isEmpty(); // nothing committed in this task yet
    next.close(List.of(PARTITION));
    next.stop();

    assertThat(rows("t1")).containsExactly(values(1, 6L));
    assertThat(rows("t2")).containsExactly(values(1, 6L));
  }

  @Test
  void anIdleTaskStillCompactsWhatItCommitted() throws Exception {
    Map<String, String> props = props();
    props.put("compaction.interval.ms", "200");
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new Context());
    task.start(props);
    try {
      task.open(List.of(PARTITION));
      task.put(records(0, 4));
      task.commitTables(task.processedPositions(), id -> true);
      // no put from here on: Connect calls it only when its consumer poll returns, which for an
      // idle task can be as rare as the worker's offset flush interval
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(60))
          .until(() -> commitUsers("t1").contains("changelake-sink-payments-sink-compactor"));
    } finally {
      task.stop();
    }
    assertThat(rows("t1")).containsExactly(values(1, 2L));
  }

  Set<String> commitUsers(String table) throws Exception {
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      Set<String> users = new java.util.HashSet<>();
      var snapshots =
          ((org.apache.paimon.table.FileStoreTable)
                  catalog.getTable(Identifier.create("lake", table)))
              .snapshotManager()
              .snapshots();
      snapshots.forEachRemaining(snapshot -> users.add(snapshot.commitUser()));
      return users;
    }
  }

  static final Schema FLAT =
      SchemaBuilder.struct()
          .name("payments.Value")
          .field("account", Schema.INT32_SCHEMA)
          .field("amount", Schema.OPTIONAL_INT64_SCHEMA)
          .field("__op", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__deleted", Schema.OPTIONAL_STRING_SCHEMA)
          .field("__lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  static SinkRecord flat(long offset, int account, Long amount, String op, String deleted) {
    Struct value =
        amount == null && op == null
            ? null
            : new Struct(FLAT)
                .put("account", account)
                .put("amount", amount)
                .put("__op", op)
                .put("__deleted", deleted)
                .put("__lsn", 1000L + offset);
    return new SinkRecord(
        PARTITION.topic(),
        PARTITION.partition(),
        KEY,
        new Struct(KEY).put("account", account),
        value == null ? null : FLAT,
        value,
        offset);
  }

  @Test
  void flattenedRowsWithRewrittenAndTombstoneDeletes() throws Exception {
    Map<String, String> props = props();
    props.put("input.format", "flattened");
    props.put("route.table.format", "flat_payments");
    props.put("table.merge-engine", "deduplicate");
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new Context());
    task.start(props);
    task.open(List.of(PARTITION));

    task.put(
        List.of(
            flat(0, 1, 10L, "c", "false"),
            flat(1, 2, 20L, "c", "false"),
            flat(2, 3, 30L, "r", "false"),
            flat(3, 1, 11L, "u", "false"),
            // delete.tombstone.handling.mode=rewrite: the old row with __deleted=true
            flat(4, 2, 20L, "d", "true"),
            // the transform's default: the delete is a tombstone
            flat(5, 3, null, null, null)));
    task.close(List.of(PARTITION));
    task.stop();

    assertThat(rows("flat_payments")).containsExactly(values(1, 11L));
  }

  static final Schema DOC_KEY = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
  static final Schema DOC =
      SchemaBuilder.struct()
          .optional()
          .field("id", Schema.INT32_SCHEMA)
          .field("body", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  static final Schema DOC_ENVELOPE =
      SchemaBuilder.struct()
          .name("docs.Envelope")
          .field("before", DOC)
          .field("after", DOC)
          .field("source", SOURCE)
          .field("op", Schema.STRING_SCHEMA)
          .build();
  static final String UNAVAILABLE = "__debezium_unavailable_value";

  /** A change of table docs; {@code op = t} is a truncate (no key, no row). */
  static SinkRecord doc(long offset, String op, Integer id, String body) {
    Struct source =
        new Struct(SOURCE).put("db", "shop").put("table", "docs").put("lsn", 1000L + offset);
    Struct value = new Struct(DOC_ENVELOPE).put("source", source).put("op", op);
    if (id != null) {
      // no before image: PostgreSQL's default replica identity
      value.put("after", new Struct(DOC).put("id", id).put("body", body));
    }
    return new SinkRecord(
        PARTITION.topic(),
        PARTITION.partition(),
        id == null ? null : DOC_KEY,
        id == null ? null : new Struct(DOC_KEY).put("id", id),
        DOC_ENVELOPE,
        value,
        offset);
  }

  Map<String, String> docProps() {
    Map<String, String> props = props();
    props.put("table.merge-engine", "deduplicate");
    props.remove("table.option.fields.amount.aggregate-function");
    return props;
  }

  @Test
  void truncateDeletesEveryRowAndIsNotReplayedAfterACrash() throws Exception {
    ChangelakeSinkTask crashed = new ChangelakeSinkTask();
    crashed.initialize(new Context());
    crashed.start(docProps());
    crashed.open(List.of(PARTITION));
    crashed.put(List.of(doc(0, "c", 1, "one"), doc(1, "c", 2, "two")));
    crashed.commitTables(crashed.processedPositions(), id -> true);
    assertThat(rows("docs")).containsExactly(values(1, "one"), values(2, "two"));
    // buffered when the truncate arrives: it precedes the truncate, which deletes it too
    crashed.put(List.of(doc(2, "c", 3, "three"), doc(3, "t", null, null)));
    assertThat(rows("docs")).isEmpty();
    crashed.put(List.of(doc(4, "c", 4, "four")));
    crashed.stop(); // dies before committing offset 4, Connect never heard of any of it

    ChangelakeSinkTask next = new ChangelakeSinkTask();
    next.initialize(new Context());
    next.start(docProps());
    next.open(List.of(PARTITION));
    next.put(
        List.of(
            doc(0, "c", 1, "one"),
            doc(1, "c", 2, "two"),
            doc(2, "c", 3, "three"),
            doc(3, "t", null, null),
            doc(4, "c", 4, "four"),
            doc(5, "c", 5, "five")));
    next.close(List.of(PARTITION));
    next.stop();

    // the records before the truncate were skipped as contained, not re-inserted
    assertThat(rows("docs")).containsExactly(values(4, "four"), values(5, "five"));
  }

  @Test
  void unchangedToastedValuesWithoutABeforeImageComeFromTheStoredRow() throws Exception {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new Context());
    task.start(docProps());
    task.open(List.of(PARTITION));
    task.put(List.of(doc(0, "c", 1, "committed text")));
    task.commitTables(task.processedPositions(), id -> true);

    task.put(
        List.of(
            // the stored row is committed
            doc(1, "u", 1, UNAVAILABLE),
            // the stored row was written in this very batch and is not committed yet
            doc(2, "c", 2, "fresh text"),
            doc(3, "u", 2, "fresher text"),
            doc(4, "u", 2, UNAVAILABLE)));
    assertThatThrownBy(() -> task.put(List.of(doc(5, "u", 9, UNAVAILABLE))))
        .as("no stored row to take the value from")
        .hasMessageContaining("column 'body'")
        .hasMessageContaining("REPLICA IDENTITY FULL");
    task.close(List.of(PARTITION));
    task.stop();

    assertThat(rows("docs"))
        .containsExactly(values(1, "committed text"), values(2, "fresher text"));
  }

  /** The little of SinkTaskContext the task uses. */
  static final class Context implements SinkTaskContext {
    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {}

    @Override
    public void offset(TopicPartition tp, long offset) {}

    @Override
    public void timeout(long timeoutMs) {}

    @Override
    public Set<TopicPartition> assignment() {
      return Set.of(PARTITION);
    }

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}

    @Override
    public ErrantRecordReporter errantRecordReporter() {
      return null;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
