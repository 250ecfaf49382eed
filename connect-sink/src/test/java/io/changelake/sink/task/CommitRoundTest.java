package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.PARTITION;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.doc;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.putWritten;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.testing.OffsetCopyFault;
import io.changelake.lsm.testing.TestTables;
import io.changelake.sink.testing.InputShapes;
import io.changelake.testkit.DebeziumTable;
import io.changelake.testkit.InputShape;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Commit rounds off the task thread, on real Paimon tables: the task reads on while a round lands,
 * a round's failure reaches the task naming the table, and a crash between sealing a round and its
 * landing replays without loss or doubling (sum-aggregating tables of {@link
 * ChangelakeSinkTaskTest} make a doubled record visible).
 */
class CommitRoundTest {
  @TempDir Path tmp;
  // the tables, props and records of ChangelakeSinkTaskTest, in this test's directory
  private final ChangelakeSinkTaskTest tables = new ChangelakeSinkTaskTest();

  @BeforeEach
  void shareDirectory() {
    tables.tmp = tmp;
  }

  private Map<String, String> props(InputShape shape) {
    return tables.props(shape);
  }

  private List<List<Object>> rows(String table) throws Exception {
    return tables.rows(table);
  }

  private static final Map<TopicPartition, OffsetAndMetadata> ASKED =
      Map.of(PARTITION, new OffsetAndMetadata(0));
  private static final SourcePartition SOURCE_PARTITION = new SourcePartition("payments", 0);

  private ChangelakeSinkTask start() {
    return start(InputShape.ENVELOPE);
  }

  private ChangelakeSinkTask start(InputShape shape) {
    return start(props(shape), List.of(PARTITION));
  }

  private static ChangelakeSinkTask start(
      Map<String, String> props, List<TopicPartition> partitions) {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props);
    task.open(partitions);
    return task;
  }

  /**
   * With a round in flight up to offset 12: offsets 12 to 16 are consumed all the same, while
   * {@code table} holds nothing yet and nothing is reported committed.
   */
  private void assertReadsOnWhileTheRoundIsInFlight(
      ChangelakeSinkTask task, InputShape shape, String table) throws Exception {
    CompletableFuture.runAsync(() -> task.put(records(shape, 12, 16))).get(120, TimeUnit.SECONDS);
    assertThat(task.processedPositions()).containsEntry(SOURCE_PARTITION, 16L);
    assertThat(rows(table)).as("the round has not landed").isEmpty();
    assertThat(task.preCommit(ASKED)).as("nothing committed is reported").isEmpty();
  }

  /**
   * Puts offsets 0 to 10, makes the round due and puts offsets 10 to 12: that put seals t1 and t2
   * with the positions up to offset 12 (their landing held when the committer is).
   */
  private static void sealRoundToOffset12(ChangelakeSinkTask task, InputShape shape) {
    task.put(records(shape, 0, 10));
    task.dueForCommit();
    task.put(records(shape, 10, 12));
  }

  /** Waits until the round landed, then requires exactly its position to be reported. */
  private static void assertReportsOnceLanded(ChangelakeSinkTask task, long position) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !task.preCommit(ASKED).isEmpty());
    assertThat(task.preCommit(ASKED)).isEqualTo(Map.of(PARTITION, new OffsetAndMetadata(position)));
  }

  // shapes whose records name their table (routed by ${source.table}), all with a sequence.field:
  // their round flushes on the committer thread while a second writer generation takes rows
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void recordsPutWhileARoundLandsAreConsumedAndOnlyLandedPositionsAreReported(InputShape shape)
      throws Exception {
    ChangelakeSinkTask task = start(shape);
    CountDownLatch committer = task.holdCommitter();
    try {
      sealRoundToOffset12(task, shape);

      // the task is not blocked by the round: the next batch is consumed while it is in flight
      assertReadsOnWhileTheRoundIsInFlight(task, shape, "t1");
    } finally {
      committer.countDown();
    }
    // the round's positions, not those processed after its seal
    assertReportsOnceLanded(task, 12);
    assertThat(rows("t1")).containsExactly(values(1, 6L));
    assertThat(rows("t2")).containsExactly(values(1, 6L));

    task.close(List.of(PARTITION));
    task.stop();
    assertThat(rows("t1")).containsExactly(values(1, 8L));
    assertThat(rows("t2")).containsExactly(values(1, 8L));
  }

  /**
   * A round lands on committer threads at the lowest Java priority, below the task thread that
   * reads: with -XX:ThreadPriorityPolicy=1 among the worker's JVM options Linux runs them at nice 4
   * (e2e CrashRecoveryTest reads that from /proc of a real worker).
   */
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void aRoundLandsOnThreadsBelowTheTaskThreadsPriority(InputShape shape) throws Exception {
    ChangelakeSinkTask task = start(shape);
    CountDownLatch committer = task.holdCommitter();
    try {
      sealRoundToOffset12(task, shape);
      List<Thread> committers =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> t.getName().startsWith("changelake-committer-"))
              .toList();
      assertThat(committers)
          .isNotEmpty()
          .allSatisfy(t -> assertThat(t.getPriority()).isEqualTo(Thread.MIN_PRIORITY));
      assertThat(Thread.currentThread().getPriority()).isEqualTo(Thread.NORM_PRIORITY);
    } finally {
      committer.countDown();
    }
    assertReportsOnceLanded(task, 12);
    task.stop();
  }

  /**
   * A round due by time while the previous one lands does not hold up {@code put}: the batch is
   * consumed, and the round starts once the previous one landed, carrying every row read meanwhile.
   */
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void aRoundDueWhileAnotherLandsStartsAfterItAndPutReadsOnMeanwhile(InputShape shape)
      throws Exception {
    ChangelakeSinkTask task = start(shape);
    CountDownLatch committer = task.holdCommitter();
    try {
      sealRoundToOffset12(task, shape);
      // the next round is due now, with the first one still in flight
      task.dueForCommit();
      assertReadsOnWhileTheRoundIsInFlight(task, shape, "t1");
    } finally {
      committer.countDown();
    }
    // the round due meanwhile follows the landed one, with the rows read while it landed
    assertReportsOnceLanded(task, 16);
    assertThat(rows("t1")).containsExactly(values(1, 8L));
    assertThat(rows("t2")).containsExactly(values(1, 8L));
    task.stop();
  }

  /**
   * The task's commit-rounds-started-total and commit-rounds-total, read from JMX as a monitoring
   * tool (or the benchmark's sampler) reads them: their difference is the round in flight, whether
   * it flushes and lands on the committer threads or not.
   */
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void roundsStartedAndEndedShowTheRoundInFlightWhileItLandsOffTheTaskThread(InputShape shape)
      throws Exception {
    Map<String, String> props = new HashMap<>(props(shape));
    props.put("name", "rounds-in-flight-" + shape.name().toLowerCase(java.util.Locale.ROOT));
    ChangelakeSinkTask task = start(props, List.of(PARTITION));
    javax.management.ObjectName mbean =
        new javax.management.ObjectName(
            "kafka.connect:type=plugins,connector=" + props.get("name") + ",task=0");
    try {
      assertThat(rounds(mbean)).as("started, ended before any round").containsExactly(0L, 0L);
      CountDownLatch committer = task.holdCommitter();
      try {
        sealRoundToOffset12(task, shape);
        assertThat(rounds(mbean)).as("one round in flight").containsExactly(1L, 0L);
        assertReadsOnWhileTheRoundIsInFlight(task, shape, "t1");
        assertThat(rounds(mbean)).as("still in flight while rows are read").containsExactly(1L, 0L);
      } finally {
        committer.countDown();
      }
      assertReportsOnceLanded(task, 12);
      assertThat(rounds(mbean)).as("landed: none in flight").containsExactly(1L, 1L);
      assertThat(rows("t1")).containsExactly(values(1, 6L));

      task.close(List.of(PARTITION));
      assertThat(rounds(mbean)).as("the round before partitions move").containsExactly(2L, 2L);
      assertThat(rows("t1")).containsExactly(values(1, 8L));
    } finally {
      task.stop();
    }
  }

  /** commit-rounds-started-total and commit-rounds-total of the task's MBean. */
  private static List<Long> rounds(javax.management.ObjectName mbean) throws Exception {
    javax.management.MBeanServer server =
        java.lang.management.ManagementFactory.getPlatformMBeanServer();
    List<Long> out = new ArrayList<>();
    for (String attribute : List.of("commit-rounds-started-total", "commit-rounds-total")) {
      out.add(((Number) server.getAttribute(mbean, attribute)).longValue());
    }
    return out;
  }

  // routed by ${source.table}, as a truncate needs its source table named: flattened rows name it
  // only with add.fields (the truncate itself passes the transform as an envelope). Inside put
  // (pipeline.thread=false) the put of the truncate waits, and the test sees the truncate begin
  // from the positions processed; on the pipeline thread that put returns at once and the next
  // one waits, so only the outcome is seen.
  @ParameterizedTest
  @CsvSource({
    "ENVELOPE,false",
    "FLATTENED_ADD_FIELDS,false",
    "FLATTENED_REWRITE,false",
    "ENVELOPE,true",
    "FLATTENED_ADD_FIELDS,true",
    "FLATTENED_REWRITE,true"
  })
  void aTruncateWhileARoundLandsWaitsForItAndTheRowsAfterItSurvive(
      InputShape shape, boolean pipelined) throws Exception {
    Map<String, String> props = tables.docProps(shape);
    props.put("pipeline.thread", String.valueOf(pipelined));
    ChangelakeSinkTask task = start(props, List.of(PARTITION));
    CountDownLatch committer = task.holdCommitter();
    CompletableFuture<Void> truncating;
    try {
      task.put(List.of(doc(shape, 0, "c", 1, "one"), doc(shape, 1, "c", 2, "two")));
      task.dueForCommit();
      // starts the round: its generation holds docs 1 to 3, its landing is held
      task.put(List.of(doc(shape, 2, "c", 3, "three, sealed")));
      truncating =
          CompletableFuture.runAsync(
              () -> {
                task.put(
                    List.of(
                        doc(shape, 3, "c", 4, "four, buffered before the truncate"),
                        doc(shape, 4, "t", null, null),
                        doc(shape, 5, "c", 5, "five, after the truncate")));
                task.put(List.of());
              });
      if (!pipelined) {
        // the truncate has begun: it waits for the round's landing
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> task.processedPositions().getOrDefault(SOURCE_PARTITION, 0L) >= 4L);
      }
      assertThat(rows("docs")).as("the round has not landed").isEmpty();
    } finally {
      committer.countDown();
    }
    truncating.get(120, TimeUnit.SECONDS);
    task.put(List.of(doc(shape, 6, "u", 1, "one, after the truncate")));
    task.close(List.of(PARTITION));
    task.stop();

    assertThat(rows("docs"))
        .containsExactlyInAnyOrder(
            values(5, "five, after the truncate"), values(1, "one, after the truncate"));
  }

  @Test
  void aCommitThatFailsOnTheCommitterThreadFailsTheNextPutNamingTheTable() throws Exception {
    ChangelakeSinkTask task = start();
    try {
      putWritten(task, records(0, 10));
      // t2's snapshot lands but the step after it fails for good (its offset copy is a directory)
      try (OffsetCopyFault fault =
          OffsetCopyFault.block(
              tmp.resolve("warehouse/lake.db/t2"), "changelake-sink-payments-sink-task-0")) {
        task.dueForCommit();
        task.put(records(10, 12));
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(100))
            .untilAsserted(
                () ->
                    assertThatThrownBy(() -> task.put(List.of()))
                        .hasMessageContaining("committing a round of tables")
                        .hasMessageContaining("Committing table lake.t2"));
      }
      assertThat(task.preCommit(ASKED)).as("the failed round is not reported").isEmpty();
    } finally {
      task.stop();
    }

    // Connect replays everything; what each table holds is skipped, nothing is doubled
    ChangelakeSinkTask next = start();
    next.put(records(0, 12));
    next.close(List.of(PARTITION));
    next.stop();
    assertThat(rows("t1")).containsExactly(values(1, 6L));
    assertThat(rows("t2")).containsExactly(values(1, 6L));
  }

  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void aCrashBetweenSealingARoundAndItsLandingReplaysWithoutLossOrDoubling(InputShape shape)
      throws Exception {
    ChangelakeSinkTask crashed = start(shape);
    CountDownLatch committer = crashed.holdCommitter();
    try {
      sealRoundToOffset12(crashed, shape);
      assertThat(rows("t1")).isEmpty();

      // Connect never heard of any of it: the next task gets everything again, and two more
      ChangelakeSinkTask next = start(shape);
      next.put(records(shape, 0, 14));
      assertThat(next.preCommit(ASKED)).isEmpty();
      next.close(List.of(PARTITION));
      next.stop();
      assertThat(rows("t1")).containsExactly(values(1, 7L));
      assertThat(rows("t2")).containsExactly(values(1, 7L));
    } finally {
      // the dead task's round lands late, as a zombie's would: the newer instance fences it
      committer.countDown();
      crashed.stop();
    }
    assertThat(rows("t1")).containsExactly(values(1, 7L));
    assertThat(rows("t2")).containsExactly(values(1, 7L));
  }

  @Test
  void flattenedRowsAtTheDefaultsAreReadOnWhileTheirRoundFlushesAndLands() throws Exception {
    InputShape shape = InputShape.FLATTENED;
    // flattened rows at ExtractNewRecordState's defaults name no table: route by the topic
    Map<String, String> props = props(shape);
    props.remove("route.table.format");
    props.putAll(InputShapes.route(shape, PARTITION.topic()));
    ChangelakeSinkTask task = start(props, List.of(PARTITION));
    CountDownLatch committer = task.holdCommitter();
    try {
      sealRoundToOffset12(task, shape);
      // no position in the records, yet the sink's sequence columns order the table (the
      // partition's highest position reached, then the Kafka offset): two generations are safe
      assertThat(tableOptions("payments"))
          .containsEntry("sequence.field", "_changelake_source_position,_changelake_kafka_offset");

      assertReadsOnWhileTheRoundIsInFlight(task, shape, "payments");
    } finally {
      committer.countDown();
    }
    assertReportsOnceLanded(task, 12);
    assertThat(rows("payments")).containsExactly(values(1, 12L));

    task.close(List.of(PARTITION));
    task.stop();
    assertThat(rows("payments")).containsExactly(values(1, 16L));
  }

  /**
   * {@code commit.threads=1}: the round's two tables land one after the other on the one committer
   * thread, and the round reports its position only once both did.
   */
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void withOneCommitterThreadEveryTableOfTheRoundLandsBeforeItsPositionIsReported(InputShape shape)
      throws Exception {
    Map<String, String> props = props(shape);
    props.put("commit.threads", "1");
    ChangelakeSinkTask task = start(props, List.of(PARTITION));
    sealRoundToOffset12(task, shape);

    assertReportsOnceLanded(task, 12);
    assertThat(rows("t1")).containsExactly(values(1, 6L));
    assertThat(rows("t2")).containsExactly(values(1, 6L));
    task.close(List.of(PARTITION));
    task.stop();
  }

  /**
   * {@code commit.threads=1}: a round lands its tables one after the other, those holding the
   * oldest rows (by Kafka timestamp) first, whatever order the task met the tables in: t2's row is
   * the oldest after the last round, so t2's snapshot is committed first (a row that waited longest
   * for its round does not also wait for the whole round).
   */
  @ParameterizedTest
  @EnumSource(
      value = InputShape.class,
      names = {"ENVELOPE", "FLATTENED_ADD_FIELDS", "FLATTENED_REWRITE"})
  void aRoundLandsTheTablesHoldingTheOldestRowsFirst(InputShape shape) throws Exception {
    Map<String, String> props = props(shape);
    props.put("commit.threads", "1");
    ChangelakeSinkTask task = start(props, List.of(PARTITION));
    // t1 (even offsets) is met first; the round takes offsets 0 to 10
    task.put(records(shape, 0, 10));
    task.dueForCommit();
    task.put(records(shape, 10, 11));
    assertReportsOnceLanded(task, 11);

    task.put(records(shape, 11, 12)); // t2's row, the oldest of the next round
    task.put(records(shape, 12, 13)); // then t1's
    task.dueForCommit();
    task.put(records(shape, 13, 14));
    assertReportsOnceLanded(task, 14);

    assertThat(snapshotMillis("t2")).isLessThanOrEqualTo(snapshotMillis("t1"));
    assertThat(rows("t1")).containsExactly(values(1, 7L));
    assertThat(rows("t2")).containsExactly(values(1, 7L));
    task.close(List.of(PARTITION));
    task.stop();
  }

  /** The commit time of the newest snapshot that wrote rows (not a compaction's). */
  private long snapshotMillis(String table) throws Exception {
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      SnapshotManager snapshots =
          ((FileStoreTable) catalog.getTable(Identifier.create("lake", table))).snapshotManager();
      for (long id = snapshots.latestSnapshotId(); ; id--) {
        Snapshot snapshot = snapshots.snapshot(id);
        if (snapshot.commitKind() == Snapshot.CommitKind.APPEND) {
          return snapshot.timeMillis();
        }
      }
    }
  }

  @Test
  void aRoundOverTwoPartitionsReportsEachPartitionsLandedPosition() throws Exception {
    TopicPartition p1 = new TopicPartition(PARTITION.topic(), 1);
    Map<TopicPartition, OffsetAndMetadata> asked =
        Map.of(PARTITION, new OffsetAndMetadata(0), p1, new OffsetAndMetadata(0));
    ChangelakeSinkTask task = start(props(InputShape.ENVELOPE), List.of(PARTITION, p1));
    CountDownLatch committer = task.holdCommitter();
    try {
      task.put(partitionRecords(0, 0, 10));
      task.put(partitionRecords(1, 0, 6));
      task.dueForCommit();
      // seals both tables with partition 0 up to offset 12 and partition 1 up to 6
      task.put(partitionRecords(0, 10, 12));

      CompletableFuture.runAsync(() -> task.put(partitionRecords(1, 6, 10)))
          .get(120, TimeUnit.SECONDS);
      assertThat(task.processedPositions())
          .containsEntry(new SourcePartition(PARTITION.topic(), 1), 10L);
      assertThat(task.preCommit(asked)).isEmpty();
    } finally {
      committer.countDown();
    }
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !task.preCommit(asked).isEmpty());
    assertThat(task.preCommit(asked))
        .isEqualTo(Map.of(PARTITION, new OffsetAndMetadata(12), p1, new OffsetAndMetadata(6)));
    // even offsets change t1, odd ones t2: 6 + 3 each
    assertThat(rows("t1")).containsExactly(values(1, 9L));
    assertThat(rows("t2")).containsExactly(values(1, 9L));

    task.close(List.of(PARTITION, p1));
    task.stop();
    assertThat(rows("t1")).containsExactly(values(1, 11L));
    assertThat(rows("t2")).containsExactly(values(1, 11L));
  }

  /**
   * The shape of WorkerVersionsTest's stall on a 3.9 worker: 40 creates on two partitions (18 and
   * 22), the first delivery ending inside partition 0 at offset 12, its round sealed, the rest of
   * partition 0 arriving while that round lands (or after), then only the empty puts Connect makes
   * while nothing arrives. Those puts alone must commit the rest: no close, no further record.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void theRestOfAPartitionDeliveredAfterTheFirstRoundIsCommittedByEmptyPuts(boolean whileLanding)
      throws Exception {
    TopicPartition p1 = new TopicPartition(PARTITION.topic(), 1);
    Map<TopicPartition, OffsetAndMetadata> asked =
        Map.of(PARTITION, new OffsetAndMetadata(0), p1, new OffsetAndMetadata(0));
    Map<String, String> props = tables.docProps(InputShape.ENVELOPE);
    props.put("table.buckets", "2");
    ChangelakeSinkTask task = start(props, List.of(PARTITION, p1));
    try {
      List<SinkRecord> first = new ArrayList<>(docs(1, 0, 22, 0));
      first.addAll(docs(0, 0, 12, 22));
      CountDownLatch committer = whileLanding ? task.holdCommitter() : new CountDownLatch(0);
      try {
        task.dueForCommit();
        // the table is created and its first round sealed at partition 0 = 12, partition 1 = 22
        task.put(first);
        if (!whileLanding) {
          assertReportsLanded(task, asked, 12, 22);
        }
        task.put(docs(0, 12, 18, 34));
      } finally {
        committer.countDown();
      }
      assertReportsLanded(task, asked, 12, 22);
      // nothing arrives any more: Connect's empty puts, one per interval
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                task.dueForCommit();
                task.put(List.of());
                return task.preCommit(asked).equals(committed(asked, 18, 22));
              });
      assertThat(rows("docs")).hasSize(40);
    } finally {
      task.stop();
    }
  }

  @Test
  void recordsThatStayOutOfTheTablesWhileNothingCommitsAreWarnedAboutOnceNamingWhereTheyWait()
      throws Exception {
    List<String> warnings = new CopyOnWriteArrayList<>();
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    Appender capture =
        new AbstractAppender("stuck-capture", null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            if (event.getLevel() == Level.WARN) {
              warnings.add(event.getMessage().getFormattedMessage());
            }
          }
        };
    capture.start();
    Logger taskLogger = context.getLogger(ChangelakeSinkTask.class.getName());
    taskLogger.addAppender(capture);
    ChangelakeSinkTask task = start();
    try {
      task.stuckAfter(Duration.ofMillis(300));
      CountDownLatch committer = task.holdCommitter();
      try {
        task.put(records(0, 10));
        task.dueForCommit();
        // sealed up to offset 12, its landing held: delivered, nothing committed
        task.put(records(10, 12));
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  task.preCommit(ASKED);
                  return !warnings.isEmpty();
                });
        // once per stretch, however often Connect asks
        for (int i = 0; i < 10; i++) {
          task.preCommit(ASKED);
          Thread.sleep(50);
        }
      } finally {
        committer.countDown();
      }
      assertThat(warnings).hasSize(1);
      assertThat(warnings.get(0))
          .contains("payments-0=0..12")
          .contains("have not reached the tables")
          .contains("tables with uncommitted rows []")
          .contains("a commit round is in flight");

      // rounds that land keep it quiet, as does a task with nothing waiting
      assertReportsOnceLanded(task, 12);
      for (int i = 0; i < 10; i++) {
        task.preCommit(ASKED);
        Thread.sleep(50);
      }
      assertThat(warnings).hasSize(1);
    } finally {
      taskLogger.removeAppender(capture);
      task.stop();
    }
  }

  private static void assertReportsLanded(
      ChangelakeSinkTask task, Map<TopicPartition, OffsetAndMetadata> asked, long p0, long p1) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              task.put(List.of());
              return !task.preCommit(asked).isEmpty();
            });
    assertThat(task.preCommit(asked)).isEqualTo(committed(asked, p0, p1));
  }

  private static Map<TopicPartition, OffsetAndMetadata> committed(
      Map<TopicPartition, OffsetAndMetadata> asked, long p0, long p1) {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    for (TopicPartition tp : asked.keySet()) {
      out.put(tp, new OffsetAndMetadata(tp.partition() == 0 ? p0 : p1));
    }
    return out;
  }

  /** Creates of docs ids {@code firstId}.. at offsets {@code from..to-1} of {@code partition}. */
  private static List<SinkRecord> docs(int partition, int from, int to, int firstId) {
    List<SinkRecord> records = new ArrayList<>();
    for (int offset = from; offset < to; offset++) {
      int id = firstId + offset - from + 1;
      records.add(
          ChangelakeSinkTaskTest.DOCS
              .create(ChangelakeSinkTaskTest.DOCS.row(id, "doc " + id))
              .atLsn(1000L + 100_000L * partition + offset)
              .atSourceTsMs(ChangelakeSinkTaskTest.SOURCE_TS_MS + offset)
              .toSinkRecord(InputShape.ENVELOPE, partition, offset));
    }
    return records;
  }

  /**
   * Envelopes of partition {@code partition}, offsets {@code from..to-1}: even ones add 1 to t1's
   * account 1, odd ones to t2's; positions of the two partitions never meet.
   */
  private static List<SinkRecord> partitionRecords(int partition, int from, int to) {
    List<SinkRecord> records = new ArrayList<>();
    for (int offset = from; offset < to; offset++) {
      DebeziumTable table = offset % 2 == 0 ? ChangelakeSinkTaskTest.T1 : ChangelakeSinkTaskTest.T2;
      records.add(
          table
              .create(table.row(1, 1L))
              .atLsn(1000L + 100_000L * partition + offset)
              .atSourceTsMs(ChangelakeSinkTaskTest.SOURCE_TS_MS + offset)
              .toSinkRecord(InputShape.ENVELOPE, partition, offset));
    }
    return records;
  }

  private Map<String, String> tableOptions(String table) throws Exception {
    try (Catalog catalog = TestTables.localCatalog(tmp.resolve("warehouse"))) {
      return catalog.getTable(Identifier.create("lake", table)).options();
    }
  }
}
