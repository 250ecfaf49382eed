package io.changelake.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;
import org.junit.jupiter.api.Test;

class SnapshotTransactionsTest {
  /** Records what the task asked Connect to do. */
  private static final class Recording implements TransactionContext {
    final List<String> requests = new ArrayList<>();

    @Override
    public void commitTransaction() {
      requests.add("commit after batch");
    }

    @Override
    public void commitTransaction(SourceRecord record) {
      requests.add("commit at " + record.sourceOffset().get("row"));
    }

    @Override
    public void abortTransaction() {
      requests.add("abort");
    }

    @Override
    public void abortTransaction(SourceRecord record) {
      requests.add("abort at " + record.sourceOffset().get("row"));
    }
  }

  private final Recording context = new Recording();
  private final AtomicLong nanos = new AtomicLong();
  private final SnapshotTransactions transactions =
      new SnapshotTransactions(context, Duration.ofSeconds(10), nanos::get);

  private static List<SourceRecord> rows(int from, int to) {
    List<SourceRecord> records = new ArrayList<>();
    for (int row = from; row <= to; row++) {
      records.add(new SourceRecord(Map.of(), Map.of("row", row), "t", null, null));
    }
    return records;
  }

  @Test
  void aSnapshotIsOneTransactionEndingAtItsLastRecord() {
    transactions.returning(rows(1, 3), false);
    nanos.addAndGet(Duration.ofSeconds(9).toNanos());
    transactions.returning(rows(4, 6), false);
    transactions.returning(rows(7, 8), true);
    assertThat(context.requests).containsExactly("commit at 8");
  }

  @Test
  void aSnapshotOpenLongerThanTheLimitIsCommittedAfterTheCurrentBatchAndGoesOn() {
    transactions.returning(rows(1, 3), false);
    nanos.addAndGet(Duration.ofSeconds(11).toNanos());
    transactions.returning(rows(4, 6), false);
    assertThat(context.requests).containsExactly("commit at 6");
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    transactions.returning(rows(7, 8), false);
    nanos.addAndGet(Duration.ofSeconds(6).toNanos());
    transactions.returning(rows(9, 9), true);
    assertThat(context.requests).containsExactly("commit at 6", "commit at 9");
  }

  @Test
  void aLastBatchWithoutRecordsClosesWhatEarlierBatchesOpened() {
    transactions.returning(rows(1, 2), false);
    transactions.returning(List.of(), true);
    transactions.returning(List.of(), true);
    assertThat(context.requests).containsExactly("commit after batch");
  }

  @Test
  void endingEarlyCommitsOnlyAnOpenTransaction() {
    assertThat(transactions.endEarly()).isFalse();
    transactions.returning(rows(1, 2), false);
    assertThat(transactions.endEarly()).isTrue();
    assertThat(context.requests).containsExactly("commit after batch");
  }

  @Test
  void aTransactionHoldingTooManyUnacknowledgedRecordsEndsAtOnce() {
    int limit = (int) SnapshotTransactions.MAX_IN_FLIGHT;
    transactions.returning(rows(1, limit - 1), false);
    assertThat(transactions.mustWait()).as("below the limit").isFalse();
    transactions.returning(rows(limit, limit), false);
    assertThat(transactions.mustWait()).as("at the limit").isTrue();
    assertThat(context.requests).containsExactly("commit after batch");
    assertThat(transactions.mustWait()).as("no transaction open any more").isFalse();
    transactions.acknowledged();
    transactions.acknowledged();
    transactions.returning(rows(limit + 1, limit + 1), false);
    assertThat(transactions.mustWait()).as("below the limit again").isFalse();
  }

  @Test
  void withoutExactlyOnceNothingIsRequested() {
    SnapshotTransactions none = new SnapshotTransactions(null, Duration.ofMillis(1), nanos::get);
    none.returning(rows(1, 2), true);
    assertThat(none.endEarly()).isFalse();
    none.returning(rows(1, (int) SnapshotTransactions.MAX_IN_FLIGHT), false);
    assertThat(none.mustWait()).as("no transaction to bound").isFalse();
  }

  @Test
  void withoutExactlyOnceATaskFarAheadOfKafkaWaitsUntilHalfOfItsRecordsAreAcknowledged()
      throws Exception {
    SnapshotTransactions none =
        new SnapshotTransactions(null, Duration.ofMillis(1), System::nanoTime);
    int limit = (int) SnapshotTransactions.MAX_IN_FLIGHT;
    none.returning(rows(1, limit - 1), false);
    assertThat(none.awaitRoom(60_000)).as("below the limit").isFalse();
    none.returning(rows(limit, limit), false);

    java.util.concurrent.CompletableFuture<Boolean> waited =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> awaitRoom(none, 600_000));
    awaitHoldingBack(none);
    int acknowledged = 0;
    while (acknowledged < limit - SnapshotTransactions.RESUME_BELOW - 1) {
      none.acknowledged();
      acknowledged++;
    }
    Thread.sleep(50);
    assertThat(waited).as("one record more than half still unacknowledged").isNotDone();
    none.acknowledged();
    assertThat(waited.get(1, java.util.concurrent.TimeUnit.MINUTES)).as("waited").isTrue();
  }

  @Test
  void aRecordConnectNeverReportsBackDoesNotStopTheTask() throws Exception {
    SnapshotTransactions none =
        new SnapshotTransactions(null, Duration.ofMillis(1), System::nanoTime);
    none.returning(rows(1, (int) SnapshotTransactions.MAX_IN_FLIGHT), false);
    // nothing is acknowledged: the wait ends after its longest time, and so does every later one
    assertThat(none.awaitRoom(20)).isTrue();
    assertThat(none.awaitRoom(20)).isTrue();
  }

  @Test
  void stoppingTheTaskEndsItsWaitForKafka() throws Exception {
    SnapshotTransactions none =
        new SnapshotTransactions(null, Duration.ofMillis(1), System::nanoTime);
    none.returning(rows(1, (int) SnapshotTransactions.MAX_IN_FLIGHT), false);
    java.util.concurrent.CompletableFuture<Boolean> waited =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> awaitRoom(none, 600_000));
    awaitHoldingBack(none);
    none.release();
    assertThat(waited.get(1, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    assertThat(none.awaitRoom(600_000)).as("no wait once stopping").isFalse();
  }

  @Test
  void withExactlyOnceTheTransactionBoundsTheBacklogInstead() throws Exception {
    transactions.returning(rows(1, (int) SnapshotTransactions.MAX_IN_FLIGHT), false);
    assertThat(transactions.awaitRoom(600_000)).isFalse();
    assertThat(transactions.mustWait()).isTrue();
  }

  private static void awaitHoldingBack(SnapshotTransactions transactions)
      throws InterruptedException {
    while (!transactions.holdingBack()) {
      Thread.sleep(1);
    }
  }

  private static boolean awaitRoom(SnapshotTransactions transactions, long maxWaitMillis) {
    try {
      return transactions.awaitRoom(maxWaitMillis);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
