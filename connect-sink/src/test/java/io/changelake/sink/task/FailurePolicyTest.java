package io.changelake.sink.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.fault.BrokenWriterException;
import io.changelake.lsm.fault.CommitConflictException;
import io.changelake.lsm.fault.Dependency;
import io.changelake.lsm.fault.LakeDataException;
import io.changelake.lsm.fault.LakeUnavailableException;
import io.changelake.lsm.fault.OutageTracker;
import io.changelake.lsm.fault.RetrySettings;
import io.changelake.lsm.fault.WriterFencedException;
import io.changelake.schema.ValueConversionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FailurePolicyTest {
  private final AtomicLong clock = new AtomicLong();
  private final FailurePolicy policy =
      new FailurePolicy(
          new OutageTracker(
              "Sink task 0 of orders",
              new RetrySettings(
                  Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofSeconds(4)),
              clock::get));

  private static RuntimeException storeDown() {
    return new UncheckedIOException(new IOException(new ConnectException("refused")));
  }

  @Test
  void anUnavailableStoreIsRetriedNamingTheDependency() {
    FailurePolicy.Decision decision =
        policy.onFailure(
            new LakeUnavailableException("Commit 7 of table db.orders failed", storeDown()),
            "committing the tables");

    assertThat(decision).isInstanceOf(FailurePolicy.Decision.Retry.class);
    OutageTracker.Decision.Retry retry = ((FailurePolicy.Decision.Retry) decision).outage();
    assertThat(retry.failure().dependency()).isEqualTo(Dependency.OBJECT_STORE);
    assertThat(retry.backoff()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aBrokenWriterIsRetriedAfterDiscardingItWhenItsCausePasses() {
    assertThat(
            policy.onFailure(
                new BrokenWriterException(
                    "Writing a +I row for table db.orders failed", storeDown()),
                "writing a batch of 3 records"))
        .isInstanceOf(FailurePolicy.Decision.Retry.class);
  }

  @Test
  void aBrokenWriterWhoseCauseNeedsAPersonFailsTheTaskSayingWhatToCheck() {
    FailurePolicy.Decision decision =
        policy.onFailure(
            new BrokenWriterException(
                "Preparing commit 3 for table db.orders failed", new AccessDeniedException("lake")),
            "committing the tables");

    assertThat(decision).isInstanceOf(FailurePolicy.Decision.Fail.class);
    assertThat(((FailurePolicy.Decision.Fail) decision).message())
        .contains("Sink task 0 of orders")
        .contains("committing the tables failed and is not retried")
        .contains("paimon.s3.access-key");
  }

  @Test
  void aFencedWriterFailsTheTaskEvenWhenItWrapsAnUnavailableStore() {
    RuntimeException fenced =
        new RuntimeException(
            "commit round",
            new WriterFencedException("a newer instance of 'orders-0' commits to db.orders"));

    FailurePolicy.Decision decision = policy.onFailure(fenced, "committing the tables");

    assertThat(decision).isInstanceOf(FailurePolicy.Decision.Fail.class);
    assertThat(((FailurePolicy.Decision.Fail) decision).message())
        .contains("a newer instance of 'orders-0' commits to db.orders");
    assertThat(FailurePolicy.fencedBy(fenced)).isPresent();
    assertThat(FailurePolicy.fencedBy(storeDown())).isEmpty();
  }

  @Test
  void aDataErrorFailsTheTaskWhateverItWraps() {
    assertThat(
            policy.onFailure(
                new LakeDataException(
                    "Table db.orders uses bucket mode HASH_DYNAMIC",
                    "db.orders",
                    "bucket",
                    storeDown()),
                "writing a batch of 1 records"))
        .isInstanceOf(FailurePolicy.Decision.Fail.class);
  }

  @Test
  void aCommitConflictWithoutAnUnavailableStoreFailsTheTaskAndARestartRetriesItsFiles() {
    // retry-safe (the files stay pending), but waiting does not make a conflict go away by itself
    assertThat(
            policy.onFailure(
                new CommitConflictException(
                    "Commit 9 of table db.orders by 'orders-0' failed; the written files stay"
                        + " pending and the next commit retries them: conflict",
                    new IllegalStateException("File deletion conflicts detected")),
                "committing the tables"))
        .isInstanceOf(FailurePolicy.Decision.Fail.class);
  }

  @Test
  void recordErrorsAreTheRecordsFaultUnlessTheLakeFailedUnderneath() {
    assertThat(
            FailurePolicy.isRecordFault(
                new ValueConversionException(
                    "price",
                    org.apache.kafka.connect.data.Schema.STRING_SCHEMA,
                    org.apache.paimon.types.DataTypes.INT(),
                    "not a number")))
        .isTrue();
    assertThat(FailurePolicy.isRecordFault(new RecordException("no key", null, storeDown())))
        .isFalse();
  }
}
