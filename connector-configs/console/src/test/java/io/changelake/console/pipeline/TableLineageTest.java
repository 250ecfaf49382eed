package io.changelake.console.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TableLineageTest {

  @Test
  void theSourceTimeIsReadFromTheStreamPartOfASinkCommitMark() {
    // as the sink writes them: reached position, optional truncate, then the stream high mark
    assertThat(
            TableLineage.sourceTimestamp(
                "POSTGRES_LSN:23456|stream=POSTGRES_LSN:23400@1764601200123@shop%2Fshop"))
        .isEqualTo(1764601200123L);
    assertThat(
            TableLineage.sourceTimestamp(
                "BINLOG:7:120|truncated=BINLOG:7:100|stream=BINLOG:7:110@1764601200999@db"))
        .isEqualTo(1764601200999L);
  }

  @Test
  void aMarkWithoutAStreamPositionHasNoSourceTime() {
    assertThat(TableLineage.sourceTimestamp("POSTGRES_LSN:23456")).isNull();
    assertThat(TableLineage.sourceTimestamp("")).isNull();
  }
}
