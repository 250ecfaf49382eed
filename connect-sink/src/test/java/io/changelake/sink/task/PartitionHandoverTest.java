package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static io.changelake.sink.task.TablePositionsTest.T1;
import static io.changelake.sink.task.TablePositionsTest.T2;
import static io.changelake.sink.task.TablePositionsTest.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.changelake.sink.config.ChangelakeSinkConfig;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A partition handed to another task (a rebalance, a restart): Connect commits the offsets {@code
 * preCommit} reported before {@code close} lands the last round, so the next owner starts where the
 * consumer group stood, before that round. Once it has processed the partition's first records, it
 * reads on from the offset the partition's table holds, when the topic alone names the table;
 * otherwise it reads the records again and skips them, as before. Sum-aggregating tables of {@link
 * ChangelakeSinkTaskTest}: a record lost or written twice shows in the sums.
 */
class PartitionHandoverTest {
  @TempDir Path tmp;
  private final ChangelakeSinkTaskTest tables = new ChangelakeSinkTaskTest();

  private static final TopicPartition P0 = new TopicPartition(T1.topic(), 0);
  private static final TopicPartition P1 = new TopicPartition(T1.topic(), 1);
  private static final TopicPartition T2P0 = new TopicPartition(T2.topic(), 0);
  private static final List<TopicPartition> ASSIGNED = List.of(P0, P1, T2P0);

  @BeforeEach
  void shareDirectory() {
    tables.tmp = tmp;
  }

  /** Topic shop.t1 to table t1, shop.t2 to t2, by a rule on the topic alone. */
  private Map<String, String> byTopic(InputShape shape) {
    Map<String, String> props = tables.props(shape);
    props.remove(ChangelakeSinkConfig.ROUTE_TABLE_FORMAT);
    props.put(ChangelakeSinkConfig.ROUTE_REGEX_RULES, "shop\\.(t1|t2)=>$1");
    return props;
  }

  private static ChangelakeSinkTask start(
      Map<String, String> props, ChangelakeSinkTaskTest.Context context) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(context);
    task.start(props);
    task.open(ASSIGNED);
    return task;
  }

  /** What Connect does when partitions move: commit what preCommit reports, then close. */
  private static Map<TopicPartition, OffsetAndMetadata> revoke(ChangelakeSinkTask task) {
    Map<TopicPartition, OffsetAndMetadata> reported = task.preCommit(consumed());
    task.close(ASSIGNED);
    task.stop();
    return reported;
  }

  private static Map<TopicPartition, OffsetAndMetadata> consumed() {
    Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
    ASSIGNED.forEach(tp -> consumed.put(tp, new OffsetAndMetadata(0)));
    return consumed;
  }

  @SafeVarargs
  private static List<SinkRecord> batch(List<SinkRecord>... parts) {
    List<SinkRecord> batch = new ArrayList<>();
    for (List<SinkRecord> part : parts) {
      batch.addAll(part);
    }
    return batch;
  }

  /** The first owner: p0 0..9 and p1 0..5 of shop.t1 written, landed only by close. */
  private Map<TopicPartition, OffsetAndMetadata> firstOwner(
      Map<String, String> props, InputShape shape) throws Exception {
    ChangelakeSinkTaskTest.Context context = new ChangelakeSinkTaskTest.Context();
    ChangelakeSinkTask first = start(props, context);
    first.put(batch(records(T1, shape, 0, 0, 5), records(T1, shape, 1, 0, 6)));
    first.put(records(T1, shape, 0, 5, 10));
    // its table held nothing of the partitions: nothing to read on from
    assertThat(context.seeks).isEmpty();
    Map<TopicPartition, OffsetAndMetadata> reported = revoke(first);
    assertThat(tables.rows("t1")).containsExactlyInAnyOrder(values(1, 10L), values(2, 6L));
    return reported;
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void aPartitionAssignedAnewReadsOnFromWhereItsTableStands(InputShape shape) throws Exception {
    // no round landed before the partitions moved: the consumer group learns no offset
    assertThat(firstOwner(byTopic(shape), shape)).isEmpty();

    // so the next owner is handed them from the start
    ChangelakeSinkTaskTest.Context context = new ChangelakeSinkTaskTest.Context();
    ChangelakeSinkTask next = start(byTopic(shape), context);
    try {
      next.put(records(T1, shape, 0, 0, 4));
      next.put(batch(records(T1, shape, 0, 4, 8), records(T1, shape, 1, 0, 3)));
      // p0's first records were in table t1 already, which holds p0 up to offset 10: sought to
      // the record before, so that Connect, which counts a sought offset as committed, commits 10
      assertThat(context.seeks).containsExactly(entry(P0, 9L));

      // Connect polls p0 from there (record 9 again: in t1, it must not count twice); p1's first
      // records were processed meanwhile
      next.put(batch(records(T1, shape, 0, 9, 12), records(T1, shape, 1, 3, 6)));
      // t1 holds p1 up to offset 6, where this batch of p1 ends: its consumer stands there
      assertThat(context.seeks).containsExactly(entry(P0, 9L));
      next.put(records(T1, shape, 1, 6, 8));

      next.dueForCommit();
      assertThat(next.preCommit(consumed()))
          .containsOnly(entry(P0, new OffsetAndMetadata(12)), entry(P1, new OffsetAndMetadata(8)));
    } finally {
      next.close(ASSIGNED);
      next.stop();
    }
    assertThat(tables.rows("t1")).containsExactlyInAnyOrder(values(1, 12L), values(2, 8L));
  }

  /** Envelopes and rewritten deletes name their source table, flattened rows otherwise do not. */
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_REWRITE"})
  void aTopicWhoseRecordsNameTheirTablesIsReadAgainAndSkipped(InputShape shape) throws Exception {
    // ${source.table}: a topic may carry several source tables
    Map<String, String> bySource = tables.props(shape);
    assertThat(firstOwner(bySource, shape)).isEmpty();

    ChangelakeSinkTaskTest.Context context = new ChangelakeSinkTaskTest.Context();
    ChangelakeSinkTask next = start(bySource, context);
    try {
      next.put(records(T1, shape, 0, 0, 4));
      next.put(batch(records(T1, shape, 0, 4, 8), records(T1, shape, 1, 0, 3)));
      next.put(batch(records(T1, shape, 0, 8, 12), records(T1, shape, 1, 3, 8)));
      assertThat(context.seeks).isEmpty();
    } finally {
      next.close(ASSIGNED);
      next.stop();
    }
    assertThat(tables.rows("t1")).containsExactlyInAnyOrder(values(1, 12L), values(2, 8L));
  }

  /**
   * A crash between the two tables of a round: t1 holds its partition further than the consumer
   * group and t2 do. The next owner reads t1's partition on from there and t2's from the group's.
   */
  @ParameterizedTest
  @EnumSource(InputShape.class)
  void afterACrashBetweenTheTablesOfARoundEachPartitionReadsOnFromItsOwnTable(InputShape shape)
      throws Exception {
    ChangelakeSinkTask crashed = start(byTopic(shape), new ChangelakeSinkTaskTest.Context());
    crashed.put(batch(records(T1, shape, 0, 0, 6), records(T2, shape, 0, 0, 7)));
    crashed.commitTables(crashed.processedPositions(), id -> id.getObjectName().equals("t1"));
    crashed.stop();
    assertThat(tables.rows("t1")).containsExactly(values(1, 6L));
    assertThat(tables.rows("t2")).isEmpty();

    ChangelakeSinkTaskTest.Context context = new ChangelakeSinkTaskTest.Context();
    ChangelakeSinkTask next = start(byTopic(shape), context);
    try {
      next.put(batch(records(T1, shape, 0, 0, 2), records(T2, shape, 0, 0, 2)));
      next.put(batch(records(T1, shape, 0, 2, 4), records(T2, shape, 0, 2, 4)));
      assertThat(context.seeks).containsExactly(entry(P0, 5L));
      next.put(batch(records(T1, shape, 0, 5, 8), records(T2, shape, 0, 4, 9)));
      assertThat(context.seeks).containsExactly(entry(P0, 5L));
    } finally {
      next.close(ASSIGNED);
      next.stop();
    }
    assertThat(tables.rows("t1")).containsExactly(values(1, 8L));
    assertThat(tables.rows("t2")).containsExactly(values(1, 9L));
  }
}
