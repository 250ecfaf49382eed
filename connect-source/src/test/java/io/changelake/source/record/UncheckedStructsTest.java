package io.changelake.source.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class UncheckedStructsTest {
  private static final Schema ROW =
      SchemaBuilder.struct()
          .name("shop.orders.Value")
          .field("id", Schema.INT32_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  @Test
  void valuesGoStraightIntoTheStructOnTheKafkaVersionBuiltWith() {
    Struct struct = new Struct(ROW);
    // without the value array every put would take Connect's checking path again
    assertThat(UncheckedStructs.values(struct)).hasSize(2);
    UncheckedStructs.put(struct, ROW.field("id"), 7);
    UncheckedStructs.put(struct, ROW.field("name"), null);
    assertThat(struct).isEqualTo(new Struct(ROW).put("id", 7).put("name", null));
    assertThat(struct.getInt32("id")).isEqualTo(7);
  }

  @Test
  void aNullForARequiredFieldStillFailsAsConnectsPutFails() {
    Struct struct = new Struct(ROW);
    assertThatThrownBy(() -> UncheckedStructs.put(struct, ROW.field("id"), null))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("id");
  }
}
