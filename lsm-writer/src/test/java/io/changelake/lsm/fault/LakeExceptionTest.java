package io.changelake.lsm.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import org.junit.jupiter.api.Test;

class LakeExceptionTest {

  private static RuntimeException storeDown() {
    return new UncheckedIOException(new java.io.IOException(new ConnectException("refused")));
  }

  @Test
  void eachKindSaysWhetherARetryIsSafe() {
    assertThat(new LakeUnavailableException("m", storeDown()).retriable()).isTrue();
    assertThat(new CommitConflictException("m", null).retriable()).isTrue();
    assertThat(new BrokenWriterException("m").retriable()).isFalse();
    assertThat(new WriterFencedException("m").retriable()).isFalse();
    LakeDataException data = new LakeDataException("m", "db.t", "bucket", null);
    assertThat(data.retriable()).isFalse();
    assertThat(data.table()).isEqualTo("db.t");
    assertThat(data.field()).isEqualTo("bucket");
  }

  @Test
  void wrapTypesATransientCauseAsUnavailableAndKeepsTheMessage() {
    LakeException unavailable =
        LakeException.wrap("Compacting table db.t failed", storeDown(), BrokenWriterException::new);
    LakeException broken =
        LakeException.wrap(
            "Compacting table db.t failed",
            new IllegalStateException("corrupt manifest"),
            BrokenWriterException::new);

    assertThat(unavailable).isInstanceOf(LakeUnavailableException.class);
    assertThat(unavailable).hasMessage("Compacting table db.t failed");
    assertThat(broken).isInstanceOf(BrokenWriterException.class);
    assertThat(broken.getCause()).hasMessage("corrupt manifest");
    // callers that caught lsm-writer's IllegalStateExceptions keep catching them
    assertThat(broken).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void findReturnsTheOutermostOfAKindInTheCauseChain() {
    WriterFencedException fenced = new WriterFencedException("a newer instance commits");
    RuntimeException wrapped =
        new RuntimeException("commit round", new IllegalStateException(fenced));

    assertThat(LakeException.find(wrapped, WriterFencedException.class)).containsSame(fenced);
    assertThat(LakeException.find(wrapped, BrokenWriterException.class)).isEmpty();
  }

  @Test
  void failuresKeepReadingTheCauseOfTypedFailures() {
    // a broken writer whose cause is an unavailable store: the task may discard it and retry
    assertThat(Failures.classify(new BrokenWriterException("flush failed", storeDown())))
        .isInstanceOf(Failure.Transient.class);
    assertThat(
            Failures.classify(
                new BrokenWriterException("flush failed", new AccessDeniedException("bucket"))))
        .isInstanceOf(Failure.Terminal.class);
  }

  @Test
  void fencedAndDataFailuresAreTerminalWhateverTheyWrap() {
    LakeDataException data = new LakeDataException("bad table", "db.t", null, storeDown());

    assertThat(Failures.classify(new RuntimeException(new WriterFencedException("newer"))))
        .isInstanceOf(Failure.Terminal.class)
        .extracting(Failure::reason)
        .asString()
        .contains("WriterFencedException: newer");
    assertThat(Failures.classify(data)).isInstanceOf(Failure.Terminal.class);
  }
}
