package io.changelake.source.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangeRow;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.sink.converter.CachingJsonConverter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the source publishes is written by the caching converter to exactly the bytes Kafka's
 * JsonConverter writes, for every column type the source maps, every kind of change, truncates and
 * tombstones, in both record formats and under JsonConverter's write options: the caching converter
 * can be recommended for the source without changing a byte on the topic.
 */
class ConvertedSourceRecordsTest {
  private static final Identifier TABLE = Identifier.create("shop", "every_type");
  private static final Map<String, Object> PARTITION = Map.of("table", "every_type");

  private static final RowType ROWS =
      RowType.of(
          new DataType[] {
            DataTypes.INT().notNull(),
            DataTypes.BOOLEAN(),
            DataTypes.TINYINT(),
            DataTypes.SMALLINT(),
            DataTypes.BIGINT(),
            DataTypes.FLOAT(),
            DataTypes.DOUBLE(),
            DataTypes.STRING(),
            DataTypes.VARCHAR(10),
            DataTypes.BYTES(),
            DataTypes.DECIMAL(12, 2),
            DataTypes.DATE(),
            DataTypes.TIME(),
            DataTypes.TIMESTAMP(3),
            DataTypes.TIMESTAMP(6),
            DataTypes.TIMESTAMP(9),
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
            DataTypes.ARRAY(DataTypes.STRING()),
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.INT()),
            DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.DECIMAL(5, 1)),
            DataTypes.MULTISET(DataTypes.STRING().notNull()),
            DataTypes.ROW(
                new DataField(100, "x", DataTypes.DOUBLE()),
                new DataField(101, "tags", DataTypes.ARRAY(DataTypes.INT())))
          },
          new String[] {
            "id", "flag", "tiny", "small", "big", "real", "dbl", "text", "code", "bin", "price",
            "day", "clock", "ts3", "ts6", "ts9", "tsz", "list", "counts", "prices", "bag", "point"
          });

  static Stream<Arguments> settings() {
    Map<String, Object> schemas = Map.of("schemas.enable", "true");
    Map<String, Object> noSchemas = Map.of("schemas.enable", "false");
    Map<String, Object> nullsKept =
        Map.of("schemas.enable", "true", "replace.null.with.default", "false");
    List<Arguments> cases = new ArrayList<>();
    for (RecordFormat format : RecordFormat.values()) {
      cases.add(Arguments.of(format + ", schemas", format, schemas));
      cases.add(Arguments.of(format + ", no schemas", format, noSchemas));
      cases.add(Arguments.of(format + ", nulls kept", format, nullsKept));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("settings")
  void everyRecordOfTheSourceIsWrittenToTheBytesJsonConverterWrites(
      String name, RecordFormat format, Map<String, Object> config) {
    ChangeRecords records =
        new ChangeRecords(
            TABLE,
            "shop.every_type",
            List.of("id"),
            new ChangeRecords.Settings("src", format, "__op", true));
    List<SourceRecord> out = new ArrayList<>();
    InternalRow full = fullRow(1);
    InternalRow empty = emptyRow(2);
    List<ChangeRow> changes =
        List.of(
            new ChangeRow(RowKind.INSERT, null, full, new ReaderPosition(5, 1, false)),
            new ChangeRow(RowKind.INSERT, null, empty, new ReaderPosition(5, 2, false)),
            new ChangeRow(RowKind.UPDATE_AFTER, empty, fullRow(2), new ReaderPosition(5, 3, false)),
            new ChangeRow(RowKind.UPDATE_BEFORE, full, null, new ReaderPosition(5, 4, false)),
            new ChangeRow(RowKind.DELETE, fullRow(3), null, new ReaderPosition(5, 5, false)));
    ChangeBatch batch = new ChangeBatch(5, "APPEND", ROWS, changes, true);
    for (ChangeRow change : changes) {
      records.append(batch, change, false, "false", PARTITION, Map.of("o", 1), out);
    }
    ChangeBatch snapshot = new ChangeBatch(6, "COMPACT", ROWS, changes, true, true, null);
    records.append(snapshot, changes.get(0), true, "last", PARTITION, Map.of("o", 2), out);
    ChangeBatch overwrite =
        new ChangeBatch(
            7, "OVERWRITE", ROWS, List.of(), true, true, new ReaderPosition(8, 0, false));
    records.appendTruncate(overwrite, PARTITION, Map.of("o", 3), out);
    // five changes, the tombstone after the delete, a full-state row and the truncate
    assertThat(out).hasSize(8);

    for (SourceRecord record : out) {
      // the source fills its structs without Connect's per-value checks: each is the very struct
      // Connect's checking put builds from its values
      for (Object struct : new Object[] {record.key(), record.value()}) {
        if (struct != null) {
          assertThat(checkedCopy((Struct) struct)).as(record.toString()).isEqualTo(struct);
        }
      }
    }
    Converter reference = configured(new JsonConverter(), config);
    Converter caching = configured(new CachingJsonConverter(), config);
    for (int round = 0; round < 2; round++) { // the second round reuses every schema's bytes
      for (SourceRecord record : out) {
        assertSameBytes(reference, caching, record, true);
        assertSameBytes(reference, caching, record, false);
      }
    }
  }

  private static void assertSameBytes(
      Converter reference, Converter caching, SourceRecord record, boolean key) {
    byte[] expected =
        key
            ? reference.fromConnectData(record.topic(), record.keySchema(), record.key())
            : reference.fromConnectData(record.topic(), record.valueSchema(), record.value());
    byte[] actual =
        key
            ? caching.fromConnectData(record.topic(), record.keySchema(), record.key())
            : caching.fromConnectData(record.topic(), record.valueSchema(), record.value());
    String what = (key ? "key of " : "value of ") + record;
    assertThat(text(actual)).as(what).isEqualTo(text(expected));
    assertThat(actual).as(what).isEqualTo(expected);
  }

  /** {@code struct} built again with {@code Struct.put}, which checks every value. */
  private static Struct checkedCopy(Struct struct) {
    Struct copy = new Struct(struct.schema());
    for (Field field : struct.schema().fields()) {
      Object value = struct.get(field);
      copy.put(field, value instanceof Struct nested ? checkedCopy(nested) : value);
    }
    return copy;
  }

  private static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  private static Converter configured(Converter converter, Map<String, Object> config) {
    converter.configure(config, false);
    return converter;
  }

  private static InternalRow fullRow(int id) {
    GenericMap counts =
        new GenericMap(Map.of(BinaryString.fromString("a"), 1, BinaryString.fromString("b"), 2));
    GenericMap prices =
        new GenericMap(Map.of(7, Decimal.fromBigDecimal(new BigDecimal("3.5"), 5, 1)));
    GenericMap bag = new GenericMap(Map.of(BinaryString.fromString("x"), 3));
    return GenericRow.of(
        id,
        true,
        (byte) -8,
        (short) 300,
        -9_000_000_000L,
        1.5f,
        -2.75e100,
        BinaryString.fromString("grüße \"q\" \\ \n\t \uD83D\uDE00"),
        BinaryString.fromString("C-10"),
        new byte[] {0, -1, 127},
        Decimal.fromBigDecimal(new BigDecimal("-1234567890.12"), 12, 2),
        19_000,
        45_296_789,
        Timestamp.fromEpochMillis(1_700_000_000_123L),
        Timestamp.fromEpochMillis(1_700_000_000_123L, 456_000),
        Timestamp.fromEpochMillis(-1_000L, 999_999),
        Timestamp.fromEpochMillis(1_700_000_000_123L, 456_000),
        new GenericArray(
            new Object[] {BinaryString.fromString("s"), null, BinaryString.fromString("")}),
        counts,
        prices,
        bag,
        GenericRow.of(0.25, new GenericArray(new Object[] {1, null, 3})));
  }

  private static InternalRow emptyRow(int id) {
    GenericRow row = new GenericRow(ROWS.getFieldCount());
    row.setField(0, id);
    return row;
  }
}
