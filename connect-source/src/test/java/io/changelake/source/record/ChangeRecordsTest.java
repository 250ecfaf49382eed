package io.changelake.source.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.changelog.ReaderPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;

class ChangeRecordsTest {
  private static final Identifier TABLE = Identifier.create("shop", "orders");
  private static final RowType V1 =
      RowType.of(
          new org.apache.paimon.types.DataType[] {
            DataTypes.INT().notNull(), DataTypes.STRING(), DataTypes.BIGINT()
          },
          new String[] {"id", "name", "_changelake_seq"});
  private static final RowType V2 =
      RowType.of(
          new org.apache.paimon.types.DataType[] {
            DataTypes.INT().notNull(), DataTypes.STRING(), DataTypes.BIGINT(), DataTypes.INT()
          },
          new String[] {"id", "name", "_changelake_seq", "qty"});
  private static final Map<String, Object> PARTITION = Map.of("table", "orders");

  private static ChangeRecords records(RecordFormat format, boolean tombstones) {
    return new ChangeRecords(
        TABLE,
        "shop.orders",
        List.of("id", "_changelake_seq"),
        new ChangeRecords.Settings("src", format, "__op", tombstones));
  }

  private static InternalRow row(int id, String name) {
    return GenericRow.of(id, BinaryString.fromString(name), 99L);
  }

  private static List<SourceRecord> append(
      ChangeRecords records, RowType type, ChangeRow change, boolean fullState) {
    List<SourceRecord> out = new ArrayList<>();
    ChangeBatch batch = new ChangeBatch(5, "APPEND", type, List.of(change), true);
    records.append(
        batch, change, fullState, fullState ? "last" : "false", PARTITION, Map.of("o", 1), out);
    return out;
  }

  private static ReaderPosition at(long row, boolean fullState) {
    return new ReaderPosition(5, row, fullState);
  }

  @Test
  void updateIsOneEnvelopeWithBeforeAndAfterWithoutInternalColumns() {
    SourceRecord record =
        append(
                records(RecordFormat.ENVELOPE, true),
                V1,
                new ChangeRow(RowKind.UPDATE_AFTER, row(1, "old"), row(1, "new"), at(1, false)),
                false)
            .get(0);

    assertThat(record.topic()).isEqualTo("shop.orders");
    assertThat(record.keySchema().name()).isEqualTo("shop.orders.Key");
    assertThat(((Struct) record.key()).schema().fields()).extracting("name").containsExactly("id");
    assertThat(((Struct) record.key()).getInt32("id")).isEqualTo(1);

    Struct value = (Struct) record.value();
    assertThat(record.valueSchema().name()).isEqualTo("shop.orders.Envelope");
    assertThat(value.getString("op")).isEqualTo("u");
    assertThat(value.getStruct("before").getString("name")).isEqualTo("old");
    assertThat(value.getStruct("after").getString("name")).isEqualTo("new");
    assertThat(value.getStruct("after").schema().field("_changelake_seq")).isNull();
    Struct source = value.getStruct("source");
    assertThat(source.getString("connector")).isEqualTo("changelake");
    assertThat(source.getString("name")).isEqualTo("src");
    assertThat(source.getString("db")).isEqualTo("shop");
    assertThat(source.getString("table")).isEqualTo("orders");
    assertThat(source.getInt64("snapshot_id")).isEqualTo(5L);
    assertThat(source.getString("commit_kind")).isEqualTo("APPEND");
    assertThat(source.getString("snapshot")).isEqualTo("false");
    assertThat(value.getInt64("ts_ms")).isPositive();
    assertThat(record.sourcePartition()).isEqualTo(PARTITION);
  }

  @Test
  void opCodesFollowRowKindsAndPhase() {
    ChangeRecords records = records(RecordFormat.ENVELOPE, false);
    assertThat(
            op(
                append(
                    records,
                    V1,
                    new ChangeRow(RowKind.INSERT, null, row(1, "a"), at(1, false)),
                    false)))
        .isEqualTo("c");
    assertThat(
            op(
                append(
                    records,
                    V1,
                    new ChangeRow(RowKind.INSERT, null, row(1, "a"), at(1, true)),
                    true)))
        .isEqualTo("r");
    // an unpaired +U (input/none producers) is an update without a before image
    List<SourceRecord> lone =
        append(
            records,
            V1,
            new ChangeRow(RowKind.UPDATE_AFTER, null, row(1, "b"), at(2, false)),
            false);
    assertThat(op(lone)).isEqualTo("u");
    assertThat(((Struct) lone.get(0).value()).getStruct("before")).isNull();
    // an unpaired -U retracts the row: a delete, without a tombstone
    List<SourceRecord> retraction =
        append(
            records(RecordFormat.ENVELOPE, true),
            V1,
            new ChangeRow(RowKind.UPDATE_BEFORE, row(1, "b"), null, at(3, false)),
            false);
    assertThat(retraction).hasSize(1);
    assertThat(op(retraction)).isEqualTo("d");
  }

  @Test
  void deleteCarriesBeforeAndIsFollowedByATombstoneWhenConfigured() {
    ChangeRow delete = new ChangeRow(RowKind.DELETE, row(2, "gone"), null, at(4, false));
    List<SourceRecord> out = append(records(RecordFormat.ENVELOPE, true), V1, delete, false);
    assertThat(out).hasSize(2);
    Struct value = (Struct) out.get(0).value();
    assertThat(value.getString("op")).isEqualTo("d");
    assertThat(value.getStruct("before").getInt32("id")).isEqualTo(2);
    assertThat(value.getStruct("after")).isNull();
    assertThat(out.get(1).value()).isNull();
    assertThat(out.get(1).valueSchema()).isNull();
    assertThat(out.get(1).key()).isEqualTo(out.get(0).key());

    assertThat(append(records(RecordFormat.ENVELOPE, false), V1, delete, false)).hasSize(1);
    // the reader may put a deleted row into 'after'
    List<SourceRecord> afterOnly =
        append(
            records(RecordFormat.ENVELOPE, false),
            V1,
            new ChangeRow(RowKind.DELETE, null, row(3, "x"), at(5, false)),
            false);
    assertThat(((Struct) afterOnly.get(0).value()).getStruct("before").getInt32("id")).isEqualTo(3);
  }

  @Test
  void flatRecordsAreTheRowPlusOperation() {
    ChangeRecords records = records(RecordFormat.FLAT, true);
    Struct update =
        (Struct)
            append(
                    records,
                    V1,
                    new ChangeRow(RowKind.UPDATE_AFTER, row(1, "a"), row(1, "b"), at(1, false)),
                    false)
                .get(0)
                .value();
    assertThat(update.schema().name()).isEqualTo("shop.orders.Value");
    assertThat(update.schema().fields()).extracting("name").containsExactly("id", "name", "__op");
    assertThat(update.getString("name")).isEqualTo("b");
    assertThat(update.getString("__op")).isEqualTo("u");

    List<SourceRecord> delete =
        append(records, V1, new ChangeRow(RowKind.DELETE, row(1, "b"), null, at(2, false)), false);
    assertThat(((Struct) delete.get(0).value()).getString("__op")).isEqualTo("d");
    assertThat(((Struct) delete.get(0).value()).getString("name")).isEqualTo("b");
    assertThat(delete.get(1).value()).isNull();
  }

  @Test
  void aTruncateIsAnEnvelopeWithoutKeyOrRowsWithOpT() {
    List<SourceRecord> out = new ArrayList<>();
    ChangeBatch batch =
        new ChangeBatch(7, "OVERWRITE", V1, List.of(), true, true, new ReaderPosition(8, 0, false));
    records(RecordFormat.ENVELOPE, true).appendTruncate(batch, PARTITION, Map.of("o", 2), out);

    assertThat(out).hasSize(1).as("no tombstone follows a truncate");
    SourceRecord record = out.get(0);
    assertThat(record.key()).isNull();
    assertThat(record.keySchema()).isNull();
    assertThat(record.sourceOffset()).isEqualTo(Map.of("o", 2));
    Struct value = (Struct) record.value();
    value.validate();
    assertThat(value.schema().name()).isEqualTo("shop.orders.Envelope");
    assertThat(value.getString("op")).isEqualTo("t");
    assertThat(value.get("before")).isNull();
    assertThat(value.get("after")).isNull();
    assertThat(value.getStruct("source").getInt64("snapshot_id")).isEqualTo(7L);
    assertThat(value.getStruct("source").getString("table")).isEqualTo("orders");
  }

  @Test
  void aFlatTruncateHasEveryColumnNullAndOpT() {
    ChangeRecords records = records(RecordFormat.FLAT, true);
    List<SourceRecord> out = new ArrayList<>();
    ChangeBatch batch =
        new ChangeBatch(7, "OVERWRITE", V1, List.of(), true, true, new ReaderPosition(8, 0, false));
    records.appendTruncate(batch, PARTITION, Map.of("o", 2), out);

    Struct value = (Struct) out.get(0).value();
    value.validate();
    assertThat(out.get(0).key()).isNull();
    assertThat(value.getString("__op")).isEqualTo("t");
    assertThat(value.get("id")).isNull();
    assertThat(value.get("name")).isNull();
    assertThat(value.schema().field("id").schema().isOptional())
        .as("flat columns are optional so that a truncate has none")
        .isTrue();
    // rows keep their values in the same schema
    SourceRecord insert =
        append(records, V1, new ChangeRow(RowKind.INSERT, null, row(3, "c"), at(1, false)), false)
            .get(0);
    assertThat(((Struct) insert.value()).getInt32("id")).isEqualTo(3);
    assertThat(insert.valueSchema()).isEqualTo(value.schema());
  }

  @Test
  void flatOperationFieldMayNotShadowAColumn() {
    ChangeRecords records =
        new ChangeRecords(
            TABLE,
            "t",
            List.of("id"),
            new ChangeRecords.Settings("src", RecordFormat.FLAT, "name", true));
    assertThatThrownBy(
            () ->
                append(
                    records,
                    V1,
                    new ChangeRow(RowKind.INSERT, null, row(1, "a"), at(1, false)),
                    false))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("flat.op.field")
        .hasMessageContaining("'name'");
  }

  @Test
  void aNewColumnReachesTheSchemaOfTheNextRecord() {
    ChangeRecords records = records(RecordFormat.ENVELOPE, true);
    append(records, V1, new ChangeRow(RowKind.INSERT, null, row(1, "a"), at(1, false)), false);
    SourceRecord next =
        append(
                records,
                V2,
                new ChangeRow(
                    RowKind.INSERT,
                    null,
                    GenericRow.of(2, BinaryString.fromString("b"), 1L, 7),
                    at(2, false)),
                false)
            .get(0);
    Struct after = ((Struct) next.value()).getStruct("after");
    assertThat(after.schema().fields()).extracting("name").containsExactly("id", "name", "qty");
    assertThat(after.getInt32("qty")).isEqualTo(7);
  }

  @Test
  void everyBatchCarriesItsOwnSnapshotCommitKindAndFlagAndTsMsIsTheRecordsTimestamp() {
    ChangeRecords records = records(RecordFormat.ENVELOPE, false);
    List<SourceRecord> out = new ArrayList<>();
    Object[][] batches = {
      {5L, "APPEND", "true"},
      {5L, "APPEND", "last"},
      {6L, "COMPACT", "false"},
      {7L, "COMPACT", "false"}
    };
    int id = 0;
    for (Object[] b : batches) {
      ChangeRow first = new ChangeRow(RowKind.INSERT, null, row(++id, "a"), at(id, false));
      ChangeRow second = new ChangeRow(RowKind.INSERT, null, row(++id, "b"), at(id, false));
      ChangeBatch batch =
          new ChangeBatch((long) b[0], (String) b[1], V1, List.of(first, second), true);
      for (ChangeRow change : batch.changes()) {
        records.append(batch, change, false, (String) b[2], PARTITION, Map.of("o", id), out);
      }
    }

    assertThat(out).hasSize(8);
    for (int i = 0; i < out.size(); i++) {
      Struct value = (Struct) out.get(i).value();
      Struct source = value.getStruct("source");
      Object[] b = batches[i / 2];
      assertThat(source.getInt64("snapshot_id")).isEqualTo(b[0]);
      assertThat(source.getString("commit_kind")).isEqualTo(b[1]);
      assertThat(source.getString("snapshot")).isEqualTo(b[2]);
      assertThat(value.getInt64("ts_ms")).isEqualTo(out.get(i).timestamp());
    }
  }

  private static String op(List<SourceRecord> records) {
    return ((Struct) records.get(0).value()).getString("op");
  }
}
