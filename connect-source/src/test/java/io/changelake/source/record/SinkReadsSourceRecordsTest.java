package io.changelake.source.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.schema.debezium.DebeziumOp;
import io.changelake.sink.decode.ChangeEvent;
import io.changelake.sink.decode.DebeziumEnvelopeDecoder;
import io.changelake.sink.decode.EnvelopeDecoder;
import io.changelake.sink.decode.FlattenedDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The promise between the two connectors: what the source publishes, the sink decodes as the same
 * change (a lake fed by another lake's changelog), in both of the source's record formats.
 */
class SinkReadsSourceRecordsTest {
  private static final Identifier TABLE = Identifier.create("shop", "orders");
  private static final RowType ROWS =
      RowType.of(
          new org.apache.paimon.types.DataType[] {DataTypes.INT().notNull(), DataTypes.STRING()},
          new String[] {"id", "name"});
  private static final Map<String, Object> PARTITION = Map.of("table", "orders");

  static Stream<Arguments> formats() {
    return Stream.of(
        Arguments.of(RecordFormat.ENVELOPE, new DebeziumEnvelopeDecoder()),
        Arguments.of(RecordFormat.FLAT, new FlattenedDecoder("__op", "__deleted")));
  }

  @ParameterizedTest
  @MethodSource("formats")
  void everyChangeTheSourcePublishesIsDecodedByTheSinkAsTheSameChange(
      RecordFormat format, EnvelopeDecoder decoder) {
    ChangeRecords records =
        new ChangeRecords(
            TABLE,
            "shop.orders",
            List.of("id"),
            new ChangeRecords.Settings("src", format, "__op", false));

    assertThat(decodeRow(decoder, records, RowKind.INSERT, null, row(1, "a"), true))
        .isEqualTo(new Decoded(DebeziumOp.READ, 1, "a"));
    assertThat(decodeRow(decoder, records, RowKind.INSERT, null, row(2, "b"), false))
        .isEqualTo(new Decoded(DebeziumOp.CREATE, 2, "b"));
    assertThat(decodeRow(decoder, records, RowKind.UPDATE_AFTER, row(2, "b"), row(2, "c"), false))
        .isEqualTo(new Decoded(DebeziumOp.UPDATE, 2, "c"));
    assertThat(decodeRow(decoder, records, RowKind.DELETE, row(1, "a"), null, false))
        .isEqualTo(new Decoded(DebeziumOp.DELETE, 1, "a"));

    List<SourceRecord> out = new ArrayList<>();
    ChangeBatch overwrite =
        new ChangeBatch(
            7, "OVERWRITE", ROWS, List.of(), true, true, new ReaderPosition(8, 0, false));
    records.appendTruncate(overwrite, PARTITION, Map.of("o", 2), out);
    assertThat(out).hasSize(1);
    assertThat(decoder.decode(sinkRecord(out.get(0)))).isInstanceOf(ChangeEvent.Truncate.class);
  }

  private record Decoded(DebeziumOp op, int id, String name) {}

  private static Decoded decodeRow(
      EnvelopeDecoder decoder,
      ChangeRecords records,
      RowKind kind,
      InternalRow before,
      InternalRow after,
      boolean fullState) {
    ChangeRow change = new ChangeRow(kind, before, after, new ReaderPosition(5, 1, fullState));
    List<SourceRecord> out = new ArrayList<>();
    records.append(
        new ChangeBatch(5, "APPEND", ROWS, List.of(change), true),
        change,
        fullState,
        fullState ? "last" : "false",
        PARTITION,
        Map.of("o", 1),
        out);
    assertThat(out).hasSize(1);
    ChangeEvent.RowChange decoded = (ChangeEvent.RowChange) decoder.decode(sinkRecord(out.get(0)));
    Struct row = decoded.row();
    assertThat(((Struct) decoded.key()).getInt32("id")).isEqualTo(row.getInt32("id"));
    return new Decoded(decoded.op(), row.getInt32("id"), row.getString("name"));
  }

  private static SinkRecord sinkRecord(SourceRecord record) {
    return new SinkRecord(
        record.topic(),
        0,
        record.keySchema(),
        record.key(),
        record.valueSchema(),
        record.value(),
        42L,
        record.timestamp(),
        org.apache.kafka.common.record.TimestampType.CREATE_TIME);
  }

  private static InternalRow row(int id, String name) {
    return GenericRow.of(id, BinaryString.fromString(name));
  }
}
