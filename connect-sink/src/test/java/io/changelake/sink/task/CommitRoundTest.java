package io.changelake.sink.task;

import static io.changelake.lsm.testing.LakeRows.values;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.PARTITION;
import static io.changelake.sink.task.ChangelakeSinkTaskTest.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.testing.OffsetCopyFault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  private Map<String, String> props() {
    return tables.props();
  }

  private List<List<Object>> rows(String table) throws Exception {
    return tables.rows(table);
  }

  private static final Map<TopicPartition, OffsetAndMetadata> ASKED =
      Map.of(PARTITION, new OffsetAndMetadata(0));
  private static final SourcePartition SOURCE_PARTITION = new SourcePartition("payments", 0);

  private ChangelakeSinkTask start() {
    ChangelakeSinkTask task = new ChangelakeSinkTask();
    task.initialize(new ChangelakeSinkTaskTest.Context());
    task.start(props());
    task.open(List.of(PARTITION));
    return task;
  }

  @Test
  void recordsPutWhileARoundLandsAreConsumedAndOnlyLandedPositionsAreReported() throws Exception {
    ChangelakeSinkTask task = start();
    CountDownLatch committer = task.holdCommitter();
    try {
      task.put(records(0, 10));
      task.dueForCommit();
      // this put seals t1 and t2 with the positions up to offset 12; their commits are held
      task.put(records(10, 12));

      // the task is not blocked by the round: the next batch is consumed while it is in flight
      CompletableFuture.runAsync(() -> task.put(records(12, 16))).get(120, TimeUnit.SECONDS);
      assertThat(task.processedPositions()).containsEntry(SOURCE_PARTITION, 16L);
      assertThat(rows("t1")).as("the round has not landed").isEmpty();
      assertThat(task.preCommit(ASKED)).as("nothing committed is reported").isEmpty();
    } finally {
      committer.countDown();
    }
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !task.preCommit(ASKED).isEmpty());
    // the round's positions, not those processed after its seal
    assertThat(task.preCommit(ASKED)).isEqualTo(Map.of(PARTITION, new OffsetAndMetadata(12)));
    assertThat(rows("t1")).containsExactly(values(1, 6L));
    assertThat(rows("t2")).containsExactly(values(1, 6L));

    task.close(List.of(PARTITION));
    task.stop();
    assertThat(rows("t1")).containsExactly(values(1, 8L));
    assertThat(rows("t2")).containsExactly(values(1, 8L));
  }

  @Test
  void aCommitThatFailsOnTheCommitterThreadFailsTheNextPutNamingTheTable() throws Exception {
    ChangelakeSinkTask task = start();
    try {
      task.put(records(0, 10));
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

  @Test
  void aCrashBetweenSealingARoundAndItsLandingReplaysWithoutLossOrDoubling() throws Exception {
    ChangelakeSinkTask crashed = start();
    CountDownLatch committer = crashed.holdCommitter();
    try {
      crashed.put(records(0, 10));
      crashed.dueForCommit();
      // sealed: the rows are in files no snapshot refers to yet; then the worker dies
      crashed.put(records(10, 12));
      assertThat(rows("t1")).isEmpty();

      // Connect never heard of any of it: the next task gets everything again, and two more
      ChangelakeSinkTask next = start();
      next.put(records(0, 14));
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
}
