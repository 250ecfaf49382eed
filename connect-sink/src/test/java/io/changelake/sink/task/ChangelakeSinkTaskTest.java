package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.sink.testing.InputShapes;
import io.changelake.testkit.Change;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The task on real Paimon tables, driven directly: a crash half-way through a commit round that
 * spans two tables must neither double rows in the committed table nor lose those of the other.
 * Sum-aggregating tables make a doubled record visible.
 */
class ChangelakeSinkTaskTest {
  static final TopicPartition PARTITION = new TopicPartition("payments", 0);
  static final long SOURCE_TS_MS = 1_764_500_000_000L;

  /** Source table {@code table} of one database, all of whose changes go to topic payments. */
  static DebeziumTable payments(String table) {
    return DebeziumTable.builder(table)
        .topic(PARTITION.topic())
        .key("account", Schema.INT32_SCHEMA)
        .column("amount", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
  }

  static final DebeziumTable T1 = payments("t1");
  static final DebeziumTable T2 = payments("t2");

  @TempDir Path tmp;

  Map<String, String> props(InputShape shape) {
    Map<String, String> props = props();
    props.putAll(InputShapes.sinkConfig(shape));
    return props;
  }

  Map<String, String> props() {
    Map<String, String> props = new HashMap<>();
    props.put("name", "payments-sink");
    props.put("paimon.warehouse", tmp.resolve("warehouse").toUri().toString());
    // every batch on the pipeline thread, as under load (the default leaves small ones in put)
    props.put("pipeline.thread.min.records", "1");
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

  /**
   * Offsets 0..n-1: even ones change table t1, odd ones t2, each adding 1 to account 1; the same
   * offset is always the same change (LSN 1000 + offset), as a replayed topic is.
   */
  static List<SinkRecord> records(InputShape shape, int from, int to) {
    return records(shape, PARTITION.partition(), from, to);
  }

  /**
   * As {@link #records(InputShape, int, int)}, in partition {@code partition} of topic payments,
   * each adding 1 to account 1 + partition.
   */
  static List<SinkRecord> records(InputShape shape, int partition, int from, int to) {
    List<SinkRecord> records = new ArrayList<>();
    for (int offset = from; offset < to; offset++) {
      DebeziumTable table = offset % 2 == 0 ? T1 : T2;
      records.add(
          table
              .create(table.row(1 + partition, 1L))
              .atLsn(1000L + offset)
              .atSourceTsMs(SOURCE_TS_MS + offset)
              .toSinkRecord(shape, partition, offset));
    }
    return records;
  }

  /** As {@link #records(InputShape, int, int)}, as envelopes. */
  static List<SinkRecord> records(int from, int to) {
    return records(InputShape.ENVELOPE, from, to);
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

  // routed by ${source.table}: flattened rows name it only with add.fields
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void crashHalfWayThroughACommitRoundNeitherDoublesNorLoses(InputShape shape) throws Exception {
    ChangelakeSinkTask crashed = new ChangelakeSinkTask();
    crashed.initialize(new Context());
    crashed.start(props(shape));
    crashed.open(List.of(PARTITION));
    crashed.put(records(shape, 0, 10));
    // t1 is committed with positions up to offset 10, then the worker dies before t2 is
    crashed.commitTables(crashed.processedPositions(), id -> id.getObjectName().equals("t1"));
    crashed.stop();
    assertThat(rows("t1")).containsExactly(values(1, 5L));
    assertThat(rows("t2")).isEmpty();

    // Connect never heard of any of it: the next task gets everything again, and two more
    ChangelakeSinkTask next = new ChangelakeSinkTask();
    next.initialize(new Context());
    next.start(props(shape));
    next.open(List.of(PARTITION));
    next.put(records(shape, 0, 12));
    Map<TopicPartition, OffsetAndMetadata> reported =
        next.preCommit(Map.of(PARTITION, new OffsetAndMetadata(12)));
    assertThat(reported).isEmpty(); // nothing committed in this task yet
    next.close(List.of(PARTITION));
    next.stop();

    assertThat(rows("t1")).containsExactly(values(1, 6L));
    assertThat(rows("t2")).containsExactly(values(1, 6L));
  }

  @Test
  void aWorkerFlushRestThatIsNotANumberFailsTheStartNamingTheOption() {
    String before = System.getProperty("changelake.sink.flush-rest");
    System.setProperty("changelake.sink.flush-rest", "fast");
    try {
      ChangelakeSinkTask task = new ChangelakeSinkTask();
      task.initialize(new Context());
      assertThatThrownBy(() -> task.start(props()))
          .hasMessageContaining("changelake.sink.flush-rest must be a number")
          .hasMessageContaining("'fast'");
    } finally {
      if (before == null) {
        System.clearProperty("changelake.sink.flush-rest");
      } else {
        System.setProperty("changelake.sink.flush-rest", before);
      }
    }
  }

  // compaction does not depend on the input shape
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

  static SinkRecord flat(InputShape shape, long offset, Change change) {
    return change.atLsn(1000L + offset).toSinkRecord(shape, PARTITION.partition(), offset);
  }

  // flattened only: one stream mixing rewritten deletes and tombstone deletes
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

    DebeziumTable t = payments("flat_payments");
    InputShape rewrite = InputShape.FLATTENED_REWRITE;
    task.put(
        List.of(
            flat(rewrite, 0, t.create(t.row(1, 10L))),
            flat(rewrite, 1, t.create(t.row(2, 20L))),
            flat(rewrite, 2, t.read(t.row(3, 30L))),
            flat(rewrite, 3, t.update(null, t.row(1, 11L))),
            // delete.tombstone.handling.mode=rewrite: the old row with __deleted=true
            flat(rewrite, 4, t.delete(t.row(2, 20L))),
            // the transform's default: the delete is a tombstone
            flat(InputShape.FLATTENED, 5, t.delete(t.row(3, 30L)))));
    task.close(List.of(PARTITION));
    task.stop();

    assertThat(rows("flat_payments")).containsExactly(values(1, 11L));
  }

  static final DebeziumTable DOCS =
      DebeziumTable.builder("docs")
          .topic(PARTITION.topic())
          .key("id", Schema.INT32_SCHEMA)
          .column("body", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  static final String UNAVAILABLE = "__debezium_unavailable_value";

  /**
   * A change of table docs; {@code op = t} is a truncate (no key, no row). The same offset is
   * always the same change, as a replayed topic is.
   */
  static SinkRecord doc(InputShape shape, long offset, String op, Integer id, String body) {
    Change change =
        switch (op) {
          case "c" -> DOCS.create(DOCS.row(id, body));
          // no before image: PostgreSQL's default replica identity
          case "u" -> DOCS.update(null, DOCS.row(id, body));
          case "t" -> DOCS.truncate();
          default -> throw new IllegalArgumentException(op);
        };
    return change
        .atLsn(1000L + offset)
        .atSourceTsMs(SOURCE_TS_MS + offset)
        .toSinkRecord(shape, PARTITION.partition(), offset);
  }

  Map<String, String> docProps(InputShape shape) {
    Map<String, String> props = props(shape);
    props.put("table.merge-engine", "deduplicate");
    props.remove("table.option.fields.amount.aggregate-function");
    return props;
  }

  // routed by ${source.table} from a topic of several tables: flattened rows name it only with
  // add.fields
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void truncateDeletesEveryRowAndIsNotReplayedAfterACrash(InputShape shape) throws Exception {
    ChangelakeSinkTask crashed = new ChangelakeSinkTask();
    crashed.initialize(new Context());
    crashed.start(docProps(shape));
    crashed.open(List.of(PARTITION));
    crashed.put(List.of(doc(shape, 0, "c", 1, "one"), doc(shape, 1, "c", 2, "two")));
    crashed.commitTables(crashed.processedPositions(), id -> true);
    assertThat(rows("docs")).containsExactly(values(1, "one"), values(2, "two"));
    // buffered when the truncate arrives: it precedes the truncate, which deletes it too
    putWritten(crashed, List.of(doc(shape, 2, "c", 3, "three"), doc(shape, 3, "t", null, null)));
    assertThat(rows("docs")).isEmpty();
    crashed.put(List.of(doc(shape, 4, "c", 4, "four")));
    crashed.stop(); // dies before committing offset 4, Connect never heard of any of it

    ChangelakeSinkTask next = new ChangelakeSinkTask();
    next.initialize(new Context());
    next.start(docProps(shape));
    next.open(List.of(PARTITION));
    next.put(
        List.of(
            doc(shape, 0, "c", 1, "one"),
            doc(shape, 1, "c", 2, "two"),
            doc(shape, 2, "c", 3, "three"),
            doc(shape, 3, "t", null, null),
            doc(shape, 4, "c", 4, "four"),
            doc(shape, 5, "c", 5, "five")));
    next.close(List.of(PARTITION));
    next.stop();

    // the records before the truncate were skipped as contained, not re-inserted
    assertThat(rows("docs")).containsExactly(values(4, "four"), values(5, "five"));
  }

  // routed by ${source.table} from a topic of several tables: flattened rows name it only with
  // add.fields
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void unchangedToastedValuesWithoutABeforeImageComeFromTheStoredRow(InputShape shape)
      throws Exception {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new Context());
    task.start(docProps(shape));
    task.open(List.of(PARTITION));
    task.put(List.of(doc(shape, 0, "c", 1, "committed text")));
    task.commitTables(task.processedPositions(), id -> true);

    task.put(
        List.of(
            // the stored row is committed
            doc(shape, 1, "u", 1, UNAVAILABLE),
            // the stored row was written in this very batch and is not committed yet
            doc(shape, 2, "c", 2, "fresh text"),
            doc(shape, 3, "u", 2, "fresher text"),
            doc(shape, 4, "u", 2, UNAVAILABLE)));
    assertThatThrownBy(() -> putWritten(task, List.of(doc(shape, 5, "u", 9, UNAVAILABLE))))
        .as("no stored row to take the value from")
        .hasMessageContaining("column 'body'")
        .hasMessageContaining("REPLICA IDENTITY FULL");
    task.close(List.of(PARTITION));
    task.stop();

    assertThat(rows("docs"))
        .containsExactly(values(1, "committed text"), values(2, "fresher text"));
  }

  /**
   * Puts {@code batch} and returns once it is written. On the pipeline thread (the default) a put
   * returns before its batch is written, and the next put, Connect's next call (empty here), waits
   * for it: a failure of the batch is thrown by one of the two.
   */
  static void putWritten(ChangelakeSinkTask task, List<SinkRecord> batch) {
    task.put(batch);
    task.put(List.of());
  }

  /** The little of SinkTaskContext the task uses. */
  static final class Context implements SinkTaskContext {
    /** The offsets the task asked Connect to seek its consumer to, in the order asked. */
    final Map<TopicPartition, Long> seeks = new LinkedHashMap<>();

    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
      seeks.putAll(offsets);
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
      seeks.put(tp, offset);
    }

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
