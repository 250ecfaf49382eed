package io.changelake.lsm.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class CommitMarkTest {

  @Test
  void everyPartRoundTripsAndTheSourceCanHoldTheSeparators() {
    CommitMark mark =
        new CommitMark(
            "BINLOG:7:120",
            Optional.of("BINLOG:7:100"),
            Optional.of(new CommitMark.Stream("BINLOG:7:110", 1764601200999L, "db@a|b=c")));

    String text = mark.encode().orElseThrow();

    assertThat(text)
        .isEqualTo(
            "BINLOG:7:120|truncated=BINLOG:7:100|stream=BINLOG:7:110@1764601200999@db%40a%7Cb%3Dc");
    assertThat(CommitMark.parse(text)).isEqualTo(mark);
  }

  @Test
  void theSourceTimeIsReadFromTheStreamPartAsTheSinkWritesIt() {
    assertThat(
            CommitMark.sourceTimestamp(
                "POSTGRES_LSN:23456|stream=POSTGRES_LSN:23400@1764601200123@shop%2Fshop"))
        .contains(1764601200123L);
    assertThat(CommitMark.parse("POSTGRES_LSN:23456|stream=POSTGRES_LSN:23400@1@shop%2Fshop"))
        .isEqualTo(
            new CommitMark(
                "POSTGRES_LSN:23456",
                Optional.empty(),
                Optional.of(new CommitMark.Stream("POSTGRES_LSN:23400", 1, "shop/shop"))));
  }

  @Test
  void aMarkWithoutAStreamPartHasNoSourceTimeAndAnEmptyMarkIsNotStored() {
    assertThat(CommitMark.sourceTimestamp("POSTGRES_LSN:23456")).isEmpty();
    assertThat(CommitMark.sourceTimestamp("")).isEmpty();
    assertThat(CommitMark.sourceTimestamp("x|stream=not-a-position")).isEmpty();
    assertThat(new CommitMark("", Optional.empty(), Optional.empty()).encode()).isEmpty();
    assertThat(CommitMark.parse("|truncated=POSTGRES_LSN:9"))
        .isEqualTo(new CommitMark("", Optional.of("POSTGRES_LSN:9"), Optional.empty()));
  }

  @Test
  void aMalformedStreamPartIsRefusedWhenParsed() {
    assertThatThrownBy(() -> CommitMark.parse("x|stream=POSTGRES_LSN:1@notanumber@src"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("POSTGRES_LSN:1@notanumber@src");
  }
}
