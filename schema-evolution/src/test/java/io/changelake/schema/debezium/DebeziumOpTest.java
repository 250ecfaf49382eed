package io.changelake.schema.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DebeziumOpTest {

  @Test
  void everyOperationReadsBackFromItsDebeziumCode() {
    assertThat(DebeziumOp.values())
        .extracting(DebeziumOp::code)
        .containsExactly("c", "r", "u", "d", "t");
    for (DebeziumOp op : DebeziumOp.values()) {
      assertThat(DebeziumOp.fromCode(op.code())).isEqualTo(op);
    }
  }

  @Test
  void onlyTruncateIsNotARowChange() {
    assertThat(DebeziumOp.values())
        .filteredOn(op -> !op.isRowChange())
        .containsExactly(DebeziumOp.TRUNCATE);
  }

  @Test
  void anUnknownCodeNamesTheOnesDebeziumDefines() {
    assertThatThrownBy(() -> DebeziumOp.fromCode("x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unknown Debezium operation 'x'; expected c, r, u, d or t");
  }
}
