package io.changelake.lsm.changelog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReaderPositionTest {

  @Test
  void positionsAreEqualExactlyWhenSnapshotRowAndPhaseAre() {
    ReaderPosition position = new ReaderPosition(12, 300, false);
    assertThat(position)
        .isEqualTo(new ReaderPosition(12, 300, false))
        .hasSameHashCodeAs(new ReaderPosition(12, 300, false));
    List<ReaderPosition> others =
        List.of(
            new ReaderPosition(13, 300, false),
            new ReaderPosition(12, 301, false),
            new ReaderPosition(12, 300, true),
            new ReaderPosition(300, 12, false));
    assertThat(others).allSatisfy(other -> assertThat(other).isNotEqualTo(position));
    Set<ReaderPosition> set = new HashSet<>(others);
    set.add(position);
    assertThat(set).hasSize(5).contains(new ReaderPosition(12, 300, false));
    assertThat(position).isNotEqualTo(null).isNotEqualTo("12/300");
  }
}
