package io.changelake.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.schema.debezium.DebeziumOp;
import io.debezium.transforms.ExtractNewRecordState;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kit's flattened records are exactly what Debezium's own ExtractNewRecordState (3.6.1, on the
 * test class path) makes of the kit's envelopes, configured as each shape says.
 */
class FlatteningMatchesDebeziumTest {
  static final DebeziumTable TABLE =
      DebeziumTable.builder("orders")
          .key("id", Schema.INT32_SCHEMA)
          .column("name", Schema.OPTIONAL_STRING_SCHEMA)
          .column("price", Decimal.builder(2).optional().build())
          .column("qty", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  /** A table without primary key: Debezium sends its changes without a key. */
  static final DebeziumTable KEYLESS =
      DebeziumTable.builder("log")
          .column("id", Schema.INT32_SCHEMA)
          .column("note", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  static List<Change> changes() {
    Struct a = TABLE.row(1, "a", new BigDecimal("1.50"), 3L);
    Struct b = TABLE.row(1, "b", null, 4L);
    return List.of(
        KEYLESS.create(KEYLESS.row(1, "one")),
        KEYLESS.update(KEYLESS.row(1, "one"), KEYLESS.row(1, "one!")),
        KEYLESS.delete(KEYLESS.row(1, "one!")),
        TABLE.create(a),
        TABLE.read(a),
        TABLE.update(a, b),
        TABLE.update(null, b),
        TABLE.delete(b),
        TABLE.deleteKey(1),
        TABLE.truncate(),
        TABLE.tombstone(TABLE.key(1)));
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void everyShapeIsWhatExtractNewRecordStateMakesOfTheEnvelope(InputShape shape) {
    try (ExtractNewRecordState<SinkRecord> smt = new ExtractNewRecordState<>()) {
      smt.configure(shape.transformSettings());
      long offset = 0;
      for (Change change : changes()) {
        SinkRecord envelope = change.sinkRecord(InputShape.ENVELOPE, 1, offset).orElseThrow();
        Optional<SinkRecord> kit = change.sinkRecord(shape, 1, offset++);
        SinkRecord debezium = shape.isFlattened() ? smt.apply(envelope) : envelope;

        if (shape.isFlattened() && change.op() == DebeziumOp.TRUNCATE) {
          // the transform drops truncates; pipelines let them pass unflattened by a predicate
          assertThat(debezium).as("%s of a truncate", shape).isNull();
          assertThat(kit).hasValue(envelope);
        } else if (debezium == null) {
          assertThat(kit).as("%s of %s", shape, change).isEmpty();
        } else {
          assertThat(kit).as("%s of %s", shape, change).isPresent();
          assertThat(kit.get().valueSchema()).isEqualTo(debezium.valueSchema());
          assertThat(kit.get().value()).isEqualTo(debezium.value());
          assertThat(kit.get().keySchema()).isEqualTo(debezium.keySchema());
          assertThat(kit.get().key()).isEqualTo(debezium.key());
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void jsonBytesReadBackAsTheSinkRecord(InputShape shape) {
    JsonConverter keys = new JsonConverter();
    keys.configure(java.util.Map.of("schemas.enable", "true"), true);
    JsonConverter values = new JsonConverter();
    values.configure(java.util.Map.of("schemas.enable", "true"), false);
    for (Change change : changes()) {
      Optional<JsonRecord> json = change.json(shape);
      Optional<SinkRecord> record = change.sinkRecord(shape, 0, 0);
      assertThat(json.isPresent()).isEqualTo(record.isPresent());
      if (json.isEmpty()) {
        continue;
      }
      assertThat(json.get().topic()).isEqualTo(change.table().topic());
      Object value = values.toConnectData(json.get().topic(), json.get().value()).value();
      assertThat(value).as("%s of %s", shape, change).isEqualTo(record.get().value());
      if (change.key() != null) {
        assertThat(keys.toConnectData(json.get().topic(), json.get().key()).value())
            .isEqualTo(change.key());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(InputShape.class)
  void aSchemaChangeKeepsTheWal(InputShape shape) {
    DebeziumTable v1 =
        DebeziumTable.builder("t").key("id", Schema.INT32_SCHEMA).firstLsn(100).build();
    Change first = v1.create(v1.row(1));
    DebeziumTable v2 = v1.withColumn("note", SchemaBuilder.string().optional().build());
    Change second = v2.create(v2.row(2, "x"));

    assertThat(second.lsn()).isGreaterThan(first.lsn());
    Struct value = (Struct) second.toSinkRecord(shape, 1).value();
    Struct row = shape.isFlattened() ? value : value.getStruct("after");
    assertThat(row.get("note")).isEqualTo("x");
  }
}
