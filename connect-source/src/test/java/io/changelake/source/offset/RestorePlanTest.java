package io.changelake.source.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.lsm.changelog.RegisteredConsumer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RestorePlanTest {
  private static Optional<ReaderPosition> at(long snapshot, long row, boolean full) {
    return Optional.of(new ReaderPosition(snapshot, row, full));
  }

  @Test
  void bucketsAreGroupedByHowTheyResume() {
    RestorePlan plan =
        RestorePlan.of(
            Map.of(
                0, Optional.empty(),
                1, at(4, 2, true),
                2, at(4, 0, true),
                3, at(6, 1, true),
                4, at(9, 3, false),
                5, at(7, 0, false)),
            List.of(),
            List.of(),
            true);
    assertThat(plan.groups())
        .containsExactly(
            new RestorePlan.Group(Set.of(0), Map.of()),
            new RestorePlan.Group(
                Set.of(1, 2),
                Map.of(1, new ReaderPosition(4, 2, true), 2, new ReaderPosition(4, 0, true))),
            new RestorePlan.Group(Set.of(3), Map.of(3, new ReaderPosition(6, 1, true))),
            new RestorePlan.Group(
                Set.of(4, 5),
                Map.of(4, new ReaderPosition(9, 3, false), 5, new ReaderPosition(7, 0, false))));
  }

  @Test
  void consumersOfAnyEarlierBucketSetRaiseTheOffsetsOfQuietBuckets() {
    RestorePlan plan =
        RestorePlan.of(
            Map.of(0, at(3, 5, false), 1, at(3, 0, true), 2, at(20, 4, false), 3, Optional.empty()),
            List.of(),
            List.of(
                // an old reader of buckets 0 and 1 had published everything before snapshot 12
                new RegisteredConsumer("c-buckets-0_1", Set.of(0, 1), 12),
                // a reader of every bucket, further behind
                new RegisteredConsumer("c", Set.of(), 8)),
            true);
    assertThat(plan.groups())
        .containsExactly(
            new RestorePlan.Group(Set.of(3), Map.of()),
            new RestorePlan.Group(
                Set.of(0, 1, 2),
                Map.of(
                    0, ReaderPosition.snapshotStart(12),
                    1, ReaderPosition.snapshotStart(12),
                    2, new ReaderPosition(20, 4, false))));
  }

  @Test
  void bucketsWithoutAnOffsetOfTheirOwnResumeFromAnEarlierVersionsBucketSetOffset() {
    RestorePlan plan =
        RestorePlan.of(
            Map.of(
                0, Optional.empty(), 1, Optional.empty(), 2, at(9, 1, false), 3, Optional.empty()),
            List.of(
                // the old partition of buckets 0 and 1 stood inside snapshot 7: its row offset
                // counts both buckets, so each resumes at that snapshot's start
                new RestorePlan.LegacyOffset(Set.of(0, 1), new ReaderPosition(7, 5, false)),
                // an old whole-table partition, further behind: the later offset wins
                new RestorePlan.LegacyOffset(Set.of(), new ReaderPosition(5, 0, true)),
                // its own offset always wins over a legacy one
                new RestorePlan.LegacyOffset(Set.of(2), new ReaderPosition(30, 0, false))),
            List.of(),
            true);
    assertThat(plan.groups())
        .containsExactly(
            new RestorePlan.Group(Set.of(3), Map.of(3, new ReaderPosition(5, 0, true))),
            new RestorePlan.Group(
                Set.of(0, 1, 2),
                Map.of(
                    0, ReaderPosition.snapshotStart(7),
                    1, ReaderPosition.snapshotStart(7),
                    2, new ReaderPosition(9, 1, false))));
  }

  @Test
  void aBucketThatNeverPublishedResumesFromItsConsumersUnlessItStartsWithTheFullState() {
    Map<Integer, Optional<ReaderPosition>> stored = Map.of(0, Optional.empty(), 1, at(4, 2, false));
    List<RegisteredConsumer> consumers =
        List.of(new RegisteredConsumer("c-buckets-0_1", Set.of(0, 1), 6));
    // start.position=latest: starting bucket 0 at the latest snapshot again would skip a change
    // committed before the restart that it had not published yet
    assertThat(RestorePlan.of(stored, List.of(), consumers, false).groups())
        .containsExactly(
            new RestorePlan.Group(
                Set.of(0, 1),
                Map.of(0, ReaderPosition.snapshotStart(6), 1, ReaderPosition.snapshotStart(6))));
    // start.position=full: the full state read again holds every such change
    assertThat(RestorePlan.of(stored, List.of(), consumers, true).groups())
        .containsExactly(
            new RestorePlan.Group(Set.of(0), Map.of()),
            new RestorePlan.Group(Set.of(1), Map.of(1, ReaderPosition.snapshotStart(6))));
  }
}
