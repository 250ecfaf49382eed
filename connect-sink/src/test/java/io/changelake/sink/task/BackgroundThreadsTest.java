package io.changelake.sink.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class BackgroundThreadsTest {
  @Test
  void backgroundThreadsAreNumberedDaemonsAtTheLowestPriority() throws Exception {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            2, BackgroundThreads.factory("changelake-committer-c-0-", true));
    try {
      Thread first = CompletableFuture.supplyAsync(Thread::currentThread, pool).get();
      assertThat(first.getName()).isEqualTo("changelake-committer-c-0-0");
      assertThat(first.isDaemon()).isTrue();
      assertThat(first.getPriority()).isEqualTo(Thread.MIN_PRIORITY);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The build's test JVMs run without the option (the root pom's argLine): the log names it. */
  @Test
  void aJvmWithoutThePriorityPolicyIsToldWhichOptionToAdd() {
    assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments())
        .doesNotContain(BackgroundThreads.PRIORITY_OPTION);
    assertThat(BackgroundThreads.prioritiesIgnored())
        .contains("this worker's JVM runs without -XX:ThreadPriorityPolicy=1");
  }
}
