package io.changelake.source.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.RegisteredConsumer;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConsumerHygieneTest {
  private static final RegisteredConsumer ALL = new RegisteredConsumer("c", Set.of(), 3);
  private static final RegisteredConsumer LOW =
      new RegisteredConsumer("c-buckets-0_1", Set.of(0, 1), 5);
  private static final RegisteredConsumer ZERO =
      new RegisteredConsumer("c-buckets-0", Set.of(0), 7);
  private static final RegisteredConsumer TWO = new RegisteredConsumer("c-buckets-2", Set.of(2), 7);
  private static final RegisteredConsumer MIXED =
      new RegisteredConsumer("c-buckets-1_2", Set.of(1, 2), 4);

  @Test
  void aTaskRemovesTheOldSetsWithinItsOwnBucketsOnly() {
    assertThat(
            ConsumerHygiene.replaced(
                List.of(ALL, LOW, ZERO, TWO, MIXED), Set.of(0, 1), Set.of("c-buckets-0_1")))
        .containsExactly(ZERO);
    assertThat(
            ConsumerHygiene.replaced(
                List.of(ALL, LOW, ZERO, TWO, MIXED), Set.of(0, 1), Set.of("c-buckets-0")))
        .containsExactly(LOW);
    assertThat(
            ConsumerHygiene.replaced(
                List.of(ALL, ZERO), Set.of(ChangelogReader.ALL_BUCKETS), Set.of("c")))
        .containsExactly(ZERO);
  }

  @Test
  void theConnectorRemovesSetsSpanningTasksOnceTodaysReadersCoverThem() {
    List<Set<Integer>> today = List.of(Set.of(0, 1), Set.of(2, 3));
    // bucket 1 has no consumer of today's readers yet: the old {1,2} must stay
    assertThat(ConsumerHygiene.spanning(List.of(MIXED, ZERO, TWO), today)).isEmpty();
    RegisteredConsumer low = new RegisteredConsumer("c-buckets-0_1", Set.of(0, 1), 9);
    assertThat(ConsumerHygiene.spanning(List.of(MIXED, low, TWO), today)).containsExactly(MIXED);
    // an old reader of every bucket needs all four covered
    RegisteredConsumer high = new RegisteredConsumer("c-buckets-2_3", Set.of(2, 3), 9);
    assertThat(ConsumerHygiene.spanning(List.of(ALL, low), today)).isEmpty();
    assertThat(ConsumerHygiene.spanning(List.of(ALL, low, high), today)).containsExactly(ALL);
  }
}
