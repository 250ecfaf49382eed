package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.PARTITION;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.payments;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.putWritten;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.OffsetCopyFault;
import io.changelake.lsm.testing.TestTables;
import io.changelake.schema.debezium.EnvelopeFields;
import io.changelake.sink.testing.InputShapes;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The paths by which a task commits, on real Paimon tables: a failed commit round, a zombie
 * instance of the task, commits triggered by a truncate while dead-letter sends are pending, a
 * truncate refused by policy, a writer reopened after it sat idle. Sum-aggregating tables (from
 * {@link ChangelakeSinkTaskTest}) make a doubled record visible.
 */
class CommitPathsTest {
  private static final Map<TopicPartition, OffsetAndMetadata> ASKED =
      Map.of(PARTITION, new OffsetAndMetadata(0));

  @TempDir Path tmp;
  private final List<ChangelakeSinkTask> started = new ArrayList<>();

  @AfterEach
  void stopTasks() {
    started.forEach(ChangelakeSinkTask::stop);
  }

  private Map<String, String> props() {
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
    // commits only when the test says so (dueForCommit)
    props.put("commit.interval.ms", "3600000");
    props.put("compaction.interval.ms", "0");
    return props;
  }

  private ChangelakeSinkTask start(Map<String, String> props, Context context) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(context);
    task.start(props);
    started.add(task);
    task.open(List.of(PARTITION));
    return task;
  }

  private static Map<TopicPartition, OffsetAndMetadata> commit(ChangelakeSinkTask task) {
    task.dueForCommit();
    return task.preCommit(ASKED);
  }

  private Catalog catalog() {
    return TestTables.localCatalog(tmp.resolve("warehouse"));
  }

  /** Columns {@code names} of every row of {@code table}. */
  private List<List<Object>> rows(String table, String... names) throws Exception {
    try (Catalog catalog = catalog()) {
      Table t = catalog.getTable(Identifier.create("lake", table));
      List<String> fields = t.rowType().getFieldNames();
      List<List<Object>> rows = new ArrayList<>();
      for (List<Object> row : LakeRows.read(t)) {
        List<Object> picked = new ArrayList<>();
        for (String name : names) {
          picked.add(row.get(fields.indexOf(name)));
        }
        rows.add(picked);
      }
      return rows;
    }
  }

  private List<List<Object>> sums(String table) throws Exception {
    return rows(table, "account", "amount");
  }

  @Test
  void aCommitRoundThatFailedInPreCommitIsReplayedWithoutDoublingWhatItCommitted()
      throws Exception {
    ChangelakeSinkTask task = start(props(), new Context(null));
    putWritten(task, records(0, 10));
    // t2's snapshot lands but the step after it fails for good (its offset copy is a directory):
    // t1 is committed, t2 is committed without the task knowing
    try (OffsetCopyFault fault =
        OffsetCopyFault.block(
            tmp.resolve("warehouse/lake.db/t2"), "changelake-sink-payments-sink-task-0")) {
      assertThatThrownBy(() -> commit(task)).hasMessageContaining("t2");
    }

    // Connect rewinds to the positions last reported (none) and delivers everything again
    task.put(records(0, 12));
    Map<TopicPartition, OffsetAndMetadata> reported = commit(task);

    assertThat(reported).containsEntry(PARTITION, new OffsetAndMetadata(12));
    assertThat(sums("t1")).containsExactly(values(1, 6L));
    assertThat(sums("t2")).containsExactly(values(1, 6L));
  }

  @Test
  void aCommitRoundThatFailedTransientlyInPreCommitIsReplayedWithoutDoubling() throws Exception {
    ChangelakeSinkTask task = start(props(), new Context(null));
    putWritten(task, records(0, 10));
    try (OffsetCopyFault fault = OffsetCopyFault.blockAll(tmp.resolve("warehouse/lake.db/t2"))) {
      // the failure looks transient (an I/O error of the warehouse): the task rewinds as after a
      // crash and reports nothing new, instead of failing
      assertThat(commit(task)).doesNotContainKey(PARTITION);
    }

    task.put(records(0, 12));
    Map<TopicPartition, OffsetAndMetadata> reported = commit(task);

    assertThat(reported).containsEntry(PARTITION, new OffsetAndMetadata(12));
    assertThat(sums("t1")).containsExactly(values(1, 6L));
    assertThat(sums("t2")).containsExactly(values(1, 6L));
  }

  @Test
  void aCommitThatFailedTransientlyWhilePartitionsAreRevokedRewindsNoneOfThem() throws Exception {
    // Connect calls preCommit and then close for the partitions it revokes, and at its next poll
    // seeks every partition the task asked to rewind: one no longer assigned fails the task ("No
    // current assignment for partition", seen in OutageTest during an object-store outage)
    Context context = new Context(null);
    ChangelakeSinkTask task = start(props(), context);
    putWritten(task, records(0, 10));
    try (OffsetCopyFault fault = OffsetCopyFault.blockAll(tmp.resolve("warehouse/lake.db/t2"))) {
      assertThat(commit(task)).doesNotContainKey(PARTITION);
    }
    task.close(List.of(PARTITION));
    task.put(List.of());

    assertThat(context.rewinds).noneMatch(rewind -> rewind.containsKey(PARTITION));
  }

  // shapes that name their table, routed by ${source.table} as props() does
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS"})
  void aCommitThatFailedTransientlyWhileOneOfTwoPartitionsIsRevokedRewindsOnlyTheOneKept(
      InputShape shape) throws Exception {
    TopicPartition revoked = new TopicPartition(PARTITION.topic(), 1);
    Map<String, String> props = props();
    props.putAll(InputShapes.sinkConfig(shape));
    Context context = new Context(null);
    ChangelakeSinkTask task = start(props, context);
    task.open(List.of(revoked));
    List<SinkRecord> batch = new ArrayList<>(records(shape, 0, 10));
    batch.addAll(records(shape, revoked.partition(), 0, 6));
    putWritten(task, batch);
    try (OffsetCopyFault fault = OffsetCopyFault.blockAll(tmp.resolve("warehouse/lake.db/t2"))) {
      task.dueForCommit();
      assertThat(
              task.preCommit(
                  Map.of(PARTITION, new OffsetAndMetadata(0), revoked, new OffsetAndMetadata(0))))
          .doesNotContainKeys(PARTITION, revoked);
    }
    // Connect revokes partition 1 after that preCommit; the task that gets it reads it from the
    // positions the tables hold, so only partition 0 is rewound, in the next put
    task.close(List.of(revoked));
    task.put(List.of());
    assertThat(context.rewinds).containsExactly(Map.of(PARTITION, 0L));

    // Connect seeks partition 0 back and delivers it again; t1 had landed partition 1's rows
    task.put(records(shape, 0, 12));
    assertThat(commit(task)).containsEntry(PARTITION, new OffsetAndMetadata(12));
    // the task that gets partition 1 reads it from the last reported position (none) and skips
    // what t1 already holds
    Map<String, String> other = new HashMap<>(props);
    other.put(ChangelakeSinkTask.TASK_ID, "1");
    ChangelakeSinkTask owner = start(other, new Context(null));
    owner.open(List.of(revoked));
    owner.put(records(shape, revoked.partition(), 0, 6));
    owner.dueForCommit();
    assertThat(owner.preCommit(Map.of(revoked, new OffsetAndMetadata(0))))
        .containsEntry(revoked, new OffsetAndMetadata(6));

    assertThat(sums("t1")).containsExactlyInAnyOrder(values(1, 6L), values(2, 3L));
    assertThat(sums("t2")).containsExactlyInAnyOrder(values(1, 6L), values(2, 3L));
  }

  @Test
  void aCommitThatFailedTransientlyInPreCommitRewindsInTheNextPutWhenItsRecordsLeaveAGap()
      throws Exception {
    Context context = new Context(null);
    ChangelakeSinkTask task = start(props(), context);
    putWritten(task, records(0, 10));
    try (OffsetCopyFault fault = OffsetCopyFault.blockAll(tmp.resolve("warehouse/lake.db/t2"))) {
      assertThat(commit(task)).doesNotContainKey(PARTITION);
    }
    // polled before the rewind took effect: records 10..11 would leave 0..9 unwritten
    task.put(records(10, 12));
    assertThat(context.rewinds).containsExactly(Map.of(PARTITION, 0L));

    // Connect seeks back and delivers everything again
    task.put(records(0, 12));
    assertThat(commit(task)).containsEntry(PARTITION, new OffsetAndMetadata(12));
    assertThat(sums("t1")).containsExactly(values(1, 6L));
    assertThat(sums("t2")).containsExactly(values(1, 6L));
  }

  // shapes that name their table, routed by ${source.table} as props() does
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS"})
  void recordsDeliveredAfterARebalanceEmptiedTheFailedBatchAreNotSkippedAsItsRedelivery(
      InputShape shape) throws Exception {
    Map<String, String> props = props();
    props.putAll(InputShapes.sinkConfig(shape));
    ChangelakeSinkTask task = start(props, new Context(null));
    putWritten(task, records(shape, 0, 10));
    try (OffsetCopyFault fault = OffsetCopyFault.blockAll(tmp.resolve("warehouse/lake.db/t2"))) {
      task.dueForCommit();
      task.put(records(shape, 10, 12)); // starts the round; t2 fails to land on a committer thread
      // the transient failure comes out of a later (empty) put, which Connect would deliver again
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                try {
                  task.put(List.of());
                  return false;
                } catch (RetriableException e) {
                  return true;
                }
              });
    }

    // a rebalance before the redelivery: Connect drops the batch (it holds only records of revoked
    // partitions, here none), stops waiting to redeliver it, and delivers records polled anew from
    // the rewound positions, which must be written, not skipped as the redelivered batch
    task.close(List.of(PARTITION));
    task.open(List.of(PARTITION));
    task.put(records(shape, 0, 14));
    Map<TopicPartition, OffsetAndMetadata> reported = commit(task);

    assertThat(reported).containsEntry(PARTITION, new OffsetAndMetadata(14));
    assertThat(sums("t1")).containsExactly(values(1, 7L));
    assertThat(sums("t2")).containsExactly(values(1, 7L));
  }

  @Test
  void aZombieCommittingFirstNeitherMakesItsReplacementsRowsVanishNorGoesOnCommitting()
      throws Exception {
    ChangelakeSinkTask zombie = start(props(), new Context(null));
    zombie.put(records(0, 10));
    // the worker gave up on the zombie and started the task again; both are alive and both
    // writers start at the same commit identifier
    ChangelakeSinkTask replacement = start(props(), new Context(null));
    replacement.put(records(10, 12));
    commit(zombie);
    assertThat(sums("t1")).containsExactly(values(1, 5L));

    // Paimon drops a second commit of that identifier as already committed
    assertThat(commit(replacement)).containsEntry(PARTITION, new OffsetAndMetadata(12));
    assertThat(sums("t1")).containsExactly(values(1, 6L));
    assertThat(sums("t2")).containsExactly(values(1, 6L));

    zombie.put(records(12, 14));
    assertThatThrownBy(() -> commit(zombie))
        .hasMessageContaining("started later")
        .hasMessageContaining("changelake-sink-payments-sink-task-0");
    // Connect would rewind and deliver again: the zombie stops for good instead
    assertThatThrownBy(() -> zombie.put(records(12, 14)))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("started later");
    assertThat(sums("t1")).containsExactly(values(1, 6L));

    replacement.put(records(12, 14));
    commit(replacement);
    assertThat(sums("t1")).containsExactly(values(1, 7L));
    assertThat(sums("t2")).containsExactly(values(1, 7L));
  }

  @Test
  void aTruncateWaitsForDeadLetterSendsBeforeItsCommitRecordsPositionsPastThem() throws Exception {
    Map<String, String> props = props();
    props.put("errors.tolerance", "all");
    Context context =
        new Context(CompletableFuture.failedFuture(new IllegalStateException("down")));
    ChangelakeSinkTask task = start(props, context);

    assertThatThrownBy(
            () -> putWritten(task, List.of(change(0, "t1"), badOp(1, "t1"), truncate(2, "t1"))))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("dead-letter queue failed");

    assertThat(context.reported).hasSize(1);
    // nothing recorded offset 1 as done: a restart sends the bad record again
    try (Catalog catalog = catalog()) {
      FileStoreTable t1 = (FileStoreTable) catalog.getTable(Identifier.create("lake", "t1"));
      assertThat(CommittedOffsets.read(t1, "changelake-sink-")).isEmpty();
    }
  }

  /**
   * Records for the dead-letter queue in batches written on the pipeline thread (the default) or
   * inside put: Connect's reporter is called on the task thread only, in the records' order, and
   * the records after each are written.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void deadLetteredRecordsAreReportedInOrderOnTheTaskThreadAndTheRestIsWritten(boolean pipelined)
      throws Exception {
    Map<String, String> props = props();
    props.put("errors.tolerance", "all");
    props.put("pipeline.thread", String.valueOf(pipelined));
    Context context = new Context(CompletableFuture.completedFuture(null));
    ChangelakeSinkTask task = start(props, context);

    task.put(
        List.of(change(0, "t1"), badOp(1, "t1"), change(2, "t2"), badOp(3, "t2"), change(4, "t1")));
    task.put(List.of(badOp(5, "t1"), change(6, "t2")));

    assertThat(commit(task)).containsEntry(PARTITION, new OffsetAndMetadata(7));
    assertThat(context.reported).extracting(SinkRecord::kafkaOffset).containsExactly(1L, 3L, 5L);
    assertThat(context.reportingThreads).containsOnly(Thread.currentThread().getName());
    assertThat(sums("t1")).containsExactly(values(1, 2L));
    assertThat(sums("t2")).containsExactly(values(1, 2L));
  }

  /**
   * A bad record without errors.tolerance fails the task naming it: the put of its batch when the
   * batch is written inside put (pipeline.thread=false, or a batch below
   * pipeline.thread.min.records, the default 100 here), the next put when on the pipeline thread;
   * what came before it in the batch is committed by the close that follows, nothing after it.
   */
  @ParameterizedTest
  @CsvSource({"false,1", "true,1", "true,100"})
  void aBadRecordFailsThePutOfItsBatchOrTheNextOneNamingIt(boolean pipelined, int minRecords)
      throws Exception {
    Map<String, String> props = props();
    props.put("pipeline.thread", String.valueOf(pipelined));
    props.put("pipeline.thread.min.records", String.valueOf(minRecords));
    ChangelakeSinkTask task = start(props, new Context(null));

    List<SinkRecord> batch = List.of(change(0, "t1"), badOp(1, "t1"), change(2, "t1"));
    boolean onPipelineThread = pipelined && batch.size() >= minRecords;
    if (onPipelineThread) {
      task.put(batch);
    }
    assertThatThrownBy(() -> task.put(onPipelineThread ? List.of(change(3, "t1")) : batch))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("payments-0@1")
        .hasMessageContaining("Unknown Debezium operation 'x'");
    task.close(List.of(PARTITION));

    assertThat(sums("t1")).containsExactly(values(1, 1L));
    try (Catalog catalog = catalog()) {
      FileStoreTable t1 = (FileStoreTable) catalog.getTable(Identifier.create("lake", "t1"));
      assertThat(CommittedOffsets.read(t1, "changelake-sink-").values()).containsExactly(1L);
    }
  }

  @Test
  void truncatePolicyFailFailsTheTaskAlsoWhenErrorsAreTolerated() throws Exception {
    Map<String, String> props = props();
    props.put("errors.tolerance", "all");
    props.put("table.truncate-policy", "fail");
    Context context = new Context(CompletableFuture.completedFuture(null));
    ChangelakeSinkTask task = start(props, context);

    assertThatThrownBy(() -> putWritten(task, List.of(change(0, "t1"), truncate(1, "t1"))))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("payments-0@1")
        .hasMessageContaining("lake.t1")
        .hasMessageContaining("truncate-policy=fail");
    assertThat(context.reported).isEmpty();
  }

  @Test
  void aWriterReopenedAfterItSatIdleWritesTheSchemaAnotherTaskEvolvedTo() throws Exception {
    Map<String, String> props = props();
    props.put("table.merge-engine", "deduplicate");
    props.put("writer.idle.timeout.ms", "1000");
    ChangelakeSinkTask task = start(props, new Context(null));
    task.put(List.of(change(0, "t1")));
    commit(task);
    // another task of the connector gets records with a new column and evolves the table
    Map<String, String> other = new HashMap<>(props);
    other.put(ChangelakeSinkTask.TASK_ID, "1");
    ChangelakeSinkTask otherTask = start(other, new Context(null));
    otherTask.put(List.of(withNote(new TopicPartition("payments", 1), 0, 2, "new column")));
    commit(otherTask);
    // the first task's writer of t1 sits idle and is closed by a commit round
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              task.dueForCommit();
              task.put(List.of());
              return task.openWriters().isEmpty();
            });

    // a record of the old schema: the converter cached for it wrote the old row type
    task.put(List.of(change(1, "t1", 3)));
    commit(task);

    assertThat(rows("t1", "account", "amount", "note"))
        .containsExactlyInAnyOrder(
            values(1, 1L, null), values(2, 1L, "new column"), values(3, 1L, null));
  }

  // the commit paths do not depend on the input shape: envelopes only
  private static SinkRecord change(long offset, String table) {
    return change(offset, table, 1);
  }

  private static SinkRecord change(long offset, String table, int account) {
    DebeziumTable t = payments(table);
    return t.create(t.row(account, 1L))
        .atLsn(1000 + offset)
        .toSinkRecord(InputShape.ENVELOPE, PARTITION.partition(), offset);
  }

  private static SinkRecord badOp(long offset, String table) {
    SinkRecord record = change(offset, table);
    ((Struct) record.value()).put(EnvelopeFields.OP, "x");
    return record;
  }

  private static SinkRecord truncate(long offset, String table) {
    return payments(table)
        .truncate()
        .atLsn(1000 + offset)
        .toSinkRecord(InputShape.ENVELOPE, PARTITION.partition(), offset);
  }

  private static SinkRecord withNote(TopicPartition tp, long offset, int account, String note) {
    DebeziumTable t = payments("t1").withColumn("note", Schema.OPTIONAL_STRING_SCHEMA);
    return t.create(t.row(account, 1L, note))
        .atLsn(5000 + offset)
        .toSinkRecord(InputShape.ENVELOPE, tp.partition(), offset);
  }

  /** A task context whose dead-letter reporter answers every report with {@code outcome}. */
  static final class Context implements SinkTaskContext {
    private final Future<Void> outcome;
    final List<SinkRecord> reported = new ArrayList<>();
    // the thread of every report: Connect's reporter is not safe to call from another
    final List<String> reportingThreads = new ArrayList<>();
    // every rewind asked for, as Connect would seek them at its next poll
    final List<Map<TopicPartition, Long>> rewinds = new ArrayList<>();

    Context(Future<Void> outcome) {
      this.outcome = outcome;
    }

    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
      rewinds.add(Map.copyOf(offsets));
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
      rewinds.add(Map.of(tp, offset));
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
      if (outcome == null) {
        return null;
      }
      return (record, error) -> {
        reported.add(record);
        reportingThreads.add(Thread.currentThread().getName());
        return outcome;
      };
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
