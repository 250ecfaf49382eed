package io.changelake.sink.task;

import static io.changelake.sink.task.ChangeEvents.UNAVAILABLE;
import static io.changelake.sink.task.ChangeEvents.change;
import static io.changelake.sink.task.ChangeEvents.key;
import static io.changelake.sink.task.ChangeEvents.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.table.MergeEngine;
import io.changelake.schema.RowConverter;
import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.sink.decode.ChangeEvent.RowChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RowBuilderTest {
  static final RowType TABLE =
      TableProvisioner.spec(
              TableProvisionerTest.ID,
              TableProvisionerTest.settings(),
              change(DebeziumOp.CREATE, key(1), null, row(1, "a", "b"), 1, 0))
          .rowType();

  static GenericRow build(RowChange event, MergeEngine engine) {
    return build(event, engine, key -> Optional.empty());
  }

  static GenericRow build(
      RowChange event, MergeEngine engine, Function<InternalRow, Optional<InternalRow>> stored) {
    return RowBuilder.build(
        event,
        engine,
        new SequenceGroups.None(),
        "customers",
        event.source().position(),
        schema -> RowConverter.compile(schema, TABLE),
        stored);
  }

  static Stream<Arguments> events() {
    Struct before = row(1, "a", "old");
    Struct after = row(1, "b", "new");
    Struct keyOnly = new Struct(ChangeEvents.ROW).put("id", 1).put("name", "");
    return Stream.of(
        // event, kind, id, name, bio
        Arguments.of(
            change(DebeziumOp.READ, key(1), null, after, 100, 7), RowKind.INSERT, "b", "new"),
        Arguments.of(
            change(DebeziumOp.CREATE, key(1), null, after, 100, 7), RowKind.INSERT, "b", "new"),
        Arguments.of(
            change(DebeziumOp.UPDATE, key(1), before, after, 100, 7),
            RowKind.UPDATE_AFTER,
            "b",
            "new"),
        Arguments.of(
            change(DebeziumOp.UPDATE, key(1), null, after, 100, 7),
            RowKind.UPDATE_AFTER,
            "b",
            "new"),
        Arguments.of(
            change(DebeziumOp.DELETE, key(1), before, null, 100, 7), RowKind.DELETE, "a", "old"),
        Arguments.of(
            change(DebeziumOp.DELETE, key(1), keyOnly, null, 100, 7), RowKind.DELETE, "", null),
        // no before image at all: the key identifies the row
        Arguments.of(
            change(DebeziumOp.DELETE, key(1), null, null, 100, 7), RowKind.DELETE, null, null));
  }

  @ParameterizedTest
  @MethodSource("events")
  void buildsTheRowOfEachOperationWithItsSequence(
      RowChange event, RowKind kind, String name, String bio) {
    GenericRow row = build(event, MergeEngine.DEDUPLICATE);

    assertThat(row.getRowKind()).isEqualTo(kind);
    assertThat(row.getField(0)).isEqualTo(1);
    assertThat(row.getField(1)).isEqualTo(name == null ? null : BinaryString.fromString(name));
    assertThat(row.getField(2)).isEqualTo(bio == null ? null : BinaryString.fromString(bio));
    assertThat(row.getField(3)).isEqualTo(100L);
    assertThat(row.getField(4)).isEqualTo(7L);
  }

  @Test
  void partialUpdateLeavesUnavailableValuesNullSoTheStoredValueStays() {
    GenericRow row =
        build(
            change(DebeziumOp.UPDATE, key(1), null, row(1, "b", UNAVAILABLE), 100, 7),
            MergeEngine.PARTIAL_UPDATE);

    assertThat(row.getField(1)).isEqualTo(BinaryString.fromString("b"));
    assertThat(row.getField(2)).isNull();
  }

  @Test
  void deduplicateTakesUnavailableValuesFromTheBeforeImage() {
    GenericRow row =
        build(
            change(
                DebeziumOp.UPDATE, key(1), row(1, "a", "long"), row(1, "b", UNAVAILABLE), 100, 7),
            MergeEngine.DEDUPLICATE);

    assertThat(row.getField(1)).isEqualTo(BinaryString.fromString("b"));
    assertThat(row.getField(2)).isEqualTo(BinaryString.fromString("long"));
  }

  @Test
  void deduplicateRefusesUnavailableValuesItCannotFill() {
    assertThatThrownBy(
            () ->
                build(
                    change(DebeziumOp.UPDATE, key(1), null, row(1, "b", UNAVAILABLE), 100, 7),
                    MergeEngine.DEDUPLICATE))
        .isInstanceOf(RecordException.class)
        .hasMessageContaining("column 'bio'")
        .hasMessageContaining("holds no row with its key")
        .hasMessageContaining("REPLICA IDENTITY FULL")
        .extracting(e -> ((RecordException) e).field())
        .isEqualTo("bio");
  }

  @Test
  void unavailableValuesThatCannotBeFilledAreRefusedWithTheReasonOfTheTableKind() {
    RowChange update = change(DebeziumOp.UPDATE, key(1), null, row(1, "b", UNAVAILABLE), 100, 7);

    assertThatThrownBy(() -> build(update, null))
        .hasMessage(
            "The source did not send the value of column 'bio' (Debezium's unavailable-value"
                + " placeholder for an unchanged TOASTed column), and table customers is an"
                + " append-only change table (its records carry no key) with no stored row to take"
                + " it from. Set REPLICA IDENTITY FULL on the source table (the before image then"
                + " carries the value)");
    assertThatThrownBy(() -> build(update, MergeEngine.DEDUPLICATE))
        .hasMessage(
            "The source did not send the value of column 'bio' (Debezium's unavailable-value"
                + " placeholder for an unchanged TOASTed column), the table holds no row with its"
                + " key to take the value from, and a deduplicate table would overwrite the stored"
                + " value with it. Set REPLICA IDENTITY FULL on the source table (the before image"
                + " then carries the value)");
  }

  @Test
  void deduplicateTakesUnavailableValuesFromTheStoredRowWithoutABeforeImage() {
    List<Object> askedFor = new ArrayList<>();
    GenericRow row =
        build(
            change(DebeziumOp.UPDATE, key(1), null, row(1, "b", UNAVAILABLE), 100, 7),
            MergeEngine.DEDUPLICATE,
            key -> {
              askedFor.add(key.getInt(0));
              return Optional.of(
                  GenericRow.of(
                      1,
                      BinaryString.fromString("a"),
                      BinaryString.fromString("stored bio"),
                      50L,
                      3L));
            });

    assertThat(askedFor).containsExactly(1);
    assertThat(row.getField(1)).isEqualTo(BinaryString.fromString("b"));
    assertThat(row.getField(2)).isEqualTo(BinaryString.fromString("stored bio"));
    // the event's own position, not the stored row's
    assertThat(row.getField(3)).isEqualTo(100L);
    assertThat(row.getField(4)).isEqualTo(7L);
  }

  @Test
  void aggregationTablesNeverTakeTheirStoredAggregateForAMissingValue() {
    assertThatThrownBy(
            () ->
                build(
                    change(DebeziumOp.UPDATE, key(1), null, row(1, "b", UNAVAILABLE), 100, 7),
                    MergeEngine.AGGREGATION,
                    key -> {
                      throw new AssertionError("an aggregate is not the source's row");
                    }))
        .isInstanceOf(RecordException.class)
        .hasMessageContaining("column 'bio'");
  }
}
