package io.changelake.sink.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FlushPacingTest {
  private static final long MS = 1_000_000L;

  @Test
  void aFlushIsFollowedByItsCpuTimeTimesTheRestWithinTheRoundsWindow() {
    // 10 s interval: a window of 1.5 s (a quarter would be 2.5 s)
    FlushPacing pacing = new FlushPacing(Duration.ofSeconds(10), 1.0);
    assertThat(pacing.restNanos(40 * MS, 0, 100 * MS)).isEqualTo(40 * MS);
    // close to the window's end: only what is left of it
    assertThat(pacing.restNanos(40 * MS, 0, 1_480 * MS)).isEqualTo(20 * MS);
    // past it: the round lands at full speed
    assertThat(pacing.restNanos(40 * MS, 0, 1_500 * MS)).isZero();
    assertThat(pacing.restNanos(40 * MS, 0, 3_000 * MS)).isZero();
  }

  @Test
  void theWindowIsAQuarterOfAShortCommitInterval() {
    FlushPacing pacing = new FlushPacing(Duration.ofSeconds(1), 2.0);
    assertThat(pacing.restNanos(10 * MS, 0, 0)).isEqualTo(20 * MS);
    assertThat(pacing.restNanos(10 * MS, 0, 240 * MS)).isEqualTo(10 * MS);
    assertThat(pacing.restNanos(10 * MS, 0, 250 * MS)).isZero();
  }

  @Test
  void noRestWithoutCpuTimeOrWhenTurnedOff() {
    assertThat(new FlushPacing(Duration.ofSeconds(10), 1.0).restNanos(0, 0, 0)).isZero();
    // a JVM without thread CPU time reports -1 for both readings
    assertThat(new FlushPacing(Duration.ofSeconds(10), 1.0).restNanos(-5, 0, 0)).isZero();
    assertThat(new FlushPacing(Duration.ofSeconds(10), 0.0).restNanos(40 * MS, 0, 0)).isZero();
  }

  @Test
  void theWorkersSettingIsANumberOfZeroOrMore() {
    assertThat(FlushPacing.restPerCpu(null)).isEqualTo(1.0);
    assertThat(FlushPacing.restPerCpu(" ")).isEqualTo(1.0);
    assertThat(FlushPacing.restPerCpu("0")).isZero();
    assertThat(FlushPacing.restPerCpu("0.5")).isEqualTo(0.5);
    assertThatThrownBy(() -> FlushPacing.restPerCpu("fast"))
        .hasMessageContaining("changelake.sink.flush-rest")
        .hasMessageContaining("'fast'");
    assertThatThrownBy(() -> FlushPacing.restPerCpu("-1"))
        .hasMessageContaining("changelake.sink.flush-rest must be 0 or more, was '-1'");
  }
}
