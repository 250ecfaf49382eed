package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.OffsetProperties;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.testing.TestTables;
import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which Kafka positions a table's commits record: those of the partitions whose records were routed
 * to it, not every partition of the task (with one topic per table, every table's snapshot and
 * offset copy grew with the number of tables). Two topics of two partitions each feed two tables in
 * one task; a crash between the two tables' commits must still replay each table from its own
 * positions, without loss or doubling (sum-aggregating tables of {@link ChangelakeSinkTaskTest}).
 */
class TablePositionsTest {
  @TempDir Path tmp;
  private final ChangelakeSinkTaskTest tables = new ChangelakeSinkTaskTest();

  static final DebeziumTable T1 = source("t1");
  static final DebeziumTable T2 = source("t2");
  private static final List<TopicPartition> ASSIGNED =
      List.of(
          new TopicPartition(T1.topic(), 0),
          new TopicPartition(T1.topic(), 1),
          new TopicPartition(T2.topic(), 0),
          new TopicPartition(T2.topic(), 1));

  /** Source table {@code table}, all of whose changes go to topic {@code shop.<table>}. */
  private static DebeziumTable source(String table) {
    return DebeziumTable.builder(table)
        .topic("shop." + table)
        .key("account", Schema.INT32_SCHEMA)
        .column("amount", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
  }

  @BeforeEach
  void shareDirectory() {
    tables.tmp = tmp;
  }

  /**
   * The sum-aggregating tables of ChangelakeSinkTaskTest; flattened rows at the defaults name no
   * source table, so the table is taken from the topic.
   */
  private Map<String, String> props(InputShape shape) {
    Map<String, String> props = tables.props(shape);
    if (shape.isFlattened() && !shape.rewritesDeletes()) {
      props.remove(ChangelakeSinkConfig.ROUTE_TABLE_FORMAT);
      props.put(ChangelakeSinkConfig.ROUTE_REGEX_RULES, "shop\\.(t1|t2)=>$1");
    }
    return props;
  }

  private ChangelakeSinkTask start(InputShape shape) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props(shape));
    task.open(ASSIGNED);
    return task;
  }

  /**
   * Creates at offsets {@code from..to-1} of {@code partition} of {@code table}'s topic, each
   * adding 1 to account 1 + partition; the same offset is always the same change, as a replayed
   * topic is.
   */
  static List<SinkRecord> records(
      DebeziumTable table, InputShape shape, int partition, int from, int to) {
    List<SinkRecord> records = new ArrayList<>();
    for (int offset = from; offset < to; offset++) {
      records.add(
          table
              .create(table.row(1 + partition, 1L))
              .atLsn(1000L + 100L * partition + offset)
              .atSourceTsMs(ChangelakeSinkTaskTest.SOURCE_TS_MS + offset)
              .toSinkRecord(shape, partition, offset));
    }
    return records;
  }

  /** Puts {@code records} and commits them in a round that has landed when this returns. */
  private static void round(ChangelakeSinkTask task, List<SinkRecord> records) {
    task.put(records);
    Map<TopicPartition, OffsetAndMetadata> asked = new HashMap<>();
    ASSIGNED.forEach(tp -> asked.put(tp, new OffsetAndMetadata(0)));
    // due, and no record to start it in put: preCommit commits the round before it returns
    task.dueForCommit();
    task.preCommit(asked);
  }

  /**
   * Requires {@code table}'s commits to have recorded offsets {@code p0} and {@code p1} of the two
   * partitions of {@code source}'s topic, and its newest snapshot no other partition.
   */
  private void assertRecords(String table, DebeziumTable source, long p0, long p1)
      throws Exception {
    SourcePartition first = new SourcePartition(source.topic(), 0);
    SourcePartition second = new SourcePartition(source.topic(), 1);
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      FileStoreTable lake = (FileStoreTable) catalog.getTable(Identifier.create("lake", table));
      assertThat(CommittedOffsets.read(lake, "changelake-sink-"))
          .as("offsets table %s recorded", table)
          .isEqualTo(Map.of(first, p0, second, p1));
      Snapshot newest = lake.snapshotManager().latestSnapshot();
      assertThat(OffsetProperties.decode(newest.properties()).keySet())
          .as("partitions the newest snapshot of %s recorded", table)
          .isSubsetOf(first, second);
    }
  }

  /** Envelopes and flattened rows, routed by ${source.table} or, at the defaults, by the topic. */
  static Stream<InputShape> shapes() {
    return Stream.of(
        InputShape.ENVELOPE,
        InputShape.FLATTENED,
        InputShape.FLATTENED_ADD_FIELDS,
        InputShape.FLATTENED_REWRITE);
  }

  @ParameterizedTest
  @MethodSource("shapes")
  void eachTableRecordsOnlyThePositionsOfThePartitionsRoutedToIt(InputShape shape)
      throws Exception {
    ChangelakeSinkTask task = start(shape);
    try {
      List<SinkRecord> first = new ArrayList<>(records(T1, shape, 0, 0, 3));
      first.addAll(records(T2, shape, 0, 0, 5));
      first.addAll(records(T1, shape, 1, 0, 2));
      first.addAll(records(T2, shape, 1, 0, 1));
      round(task, first);
      assertRecords("t1", T1, 3, 2);
      assertRecords("t2", T2, 5, 1);

      // a round of t2 alone: t1 keeps what it had
      round(task, records(T2, shape, 0, 5, 8));
      assertRecords("t1", T1, 3, 2);
      assertRecords("t2", T2, 8, 1);

      // a partition that fed the table before is recorded again with its new position
      round(task, records(T1, shape, 1, 2, 4));
      assertRecords("t1", T1, 3, 4);
      assertRecords("t2", T2, 8, 1);
    } finally {
      task.close(ASSIGNED);
      task.stop();
    }
    assertThat(tables.rows("t1")).containsExactlyInAnyOrder(values(1, 3L), values(2, 4L));
    assertThat(tables.rows("t2")).containsExactlyInAnyOrder(values(1, 8L), values(2, 1L));
  }

  @ParameterizedTest
  @MethodSource("shapes")
  void aCrashBetweenTheTablesOfARoundReplaysEachFromItsOwnPositions(InputShape shape)
      throws Exception {
    ChangelakeSinkTask crashed = start(shape);
    List<SinkRecord> first = new ArrayList<>(records(T1, shape, 0, 0, 4));
    first.addAll(records(T2, shape, 0, 0, 4));
    first.addAll(records(T2, shape, 1, 0, 2));
    round(crashed, first);
    // t1 is committed with its partitions up to offset 6, then the worker dies before t2 is
    crashed.put(records(T1, shape, 0, 4, 6));
    crashed.put(records(T2, shape, 0, 4, 7));
    crashed.commitTables(crashed.processedPositions(), id -> id.getObjectName().equals("t1"));
    crashed.stop();
    assertThat(tables.rows("t1")).containsExactly(values(1, 6L));
    assertThat(tables.rows("t2")).containsExactlyInAnyOrder(values(1, 4L), values(2, 2L));

    // the positions Connect heard of may be lost too: the next task gets everything again
    ChangelakeSinkTask next = start(shape);
    next.put(records(T1, shape, 0, 0, 7));
    next.put(records(T2, shape, 0, 0, 8));
    next.put(records(T2, shape, 1, 0, 3));
    next.put(records(T1, shape, 1, 0, 1));
    next.close(ASSIGNED);
    next.stop();
    assertThat(tables.rows("t1")).containsExactlyInAnyOrder(values(1, 7L), values(2, 1L));
    assertThat(tables.rows("t2")).containsExactlyInAnyOrder(values(1, 8L), values(2, 3L));
  }
}
