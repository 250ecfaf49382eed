package io.changelake.lsm.changelog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every schema change the sink applies (schema-evolution's {@code TypeRules} widenings, added
 * columns, relaxed NOT NULL), on real tables, for both changelog producers the source supports:
 * readers opened before the change read the rows written after it with their new values, readers
 * opened after it read the rows written before it, in every start mode and through compaction.
 */
class ChangelogReaderSchemaChangeTest {
  private static final SourcePartition P0 = new SourcePartition("t", 0);

  @TempDir Path dir;
  private Catalog catalog;
  private WriterPool pool;
  private Compactor compactor;
  private long offset;

  /**
   * One kind of change of column {@code v}: its type before and after, a value that fits the old
   * type, a value only the new type holds (null for relaxed NOT NULL), and how both read back as
   * text. {@code from} is null for an added column.
   */
  record Change(
      String name,
      DataType from,
      DataType to,
      List<SchemaChange> changes,
      Object oldValue,
      Object newValue,
      String oldText,
      String oldRowOnOldSchema,
      String newText) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Change> changes() {
    List<Change> all = new ArrayList<>();
    all.add(
        widen(
            "tinyint -> smallint",
            DataTypes.TINYINT(),
            DataTypes.SMALLINT(),
            (byte) 7,
            (short) 3000));
    all.add(widen("smallint -> int", DataTypes.SMALLINT(), DataTypes.INT(), (short) -7, 70_000));
    all.add(widen("int -> bigint", DataTypes.INT(), DataTypes.BIGINT(), 2_000_000_000, 1L << 40));
    all.add(
        widen(
            "int -> decimal(12,0)",
            DataTypes.INT(),
            DataTypes.DECIMAL(12, 0),
            123,
            decimal("99999999999", 12)));
    all.add(
        widen(
            "decimal(10,2) -> decimal(14,4)",
            DataTypes.DECIMAL(10, 2),
            DataTypes.DECIMAL(14, 4),
            decimal("12345678.91", 10),
            decimal("1234567890.1234", 14)));
    all.add(
        widen(
            "decimal(10,2) -> decimal(24,2) (compact to big storage)",
            DataTypes.DECIMAL(10, 2),
            DataTypes.DECIMAL(24, 2),
            decimal("-12345678.91", 10),
            decimal("1234567890123456789012.34", 24)));
    all.add(widen("float -> double", DataTypes.FLOAT(), DataTypes.DOUBLE(), 1.5f, 1.0e300));
    all.add(
        widen(
            "varchar(10) -> varchar(100)",
            DataTypes.VARCHAR(10),
            DataTypes.VARCHAR(100),
            str("ten chars!"),
            str("a value much longer than the old ten characters")));
    all.add(
        widen(
            "char(3) -> varchar(10)",
            DataTypes.CHAR(3),
            DataTypes.VARCHAR(10),
            str("abc"),
            str("abcdefgh")));
    all.add(
        widen(
            "varbinary(2) -> varbinary(8)",
            DataTypes.VARBINARY(2),
            DataTypes.VARBINARY(8),
            new byte[] {1, 2},
            new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
    all.add(
        widen(
            "timestamp(3) -> timestamp(6) (compact to big storage)",
            DataTypes.TIMESTAMP(3),
            DataTypes.TIMESTAMP(6),
            Timestamp.fromLocalDateTime(LocalDateTime.parse("2024-01-02T03:04:05.678")),
            Timestamp.fromLocalDateTime(LocalDateTime.parse("2024-01-02T03:04:05.678912"))));
    all.add(
        new Change(
            "array<int> -> array<bigint>",
            DataTypes.ARRAY(DataTypes.INT()),
            DataTypes.ARRAY(DataTypes.BIGINT()),
            List.of(
                SchemaChange.updateColumnType(
                    new String[] {"v", "element"}, DataTypes.BIGINT(), true)),
            new GenericArray(new Object[] {1, null, 3}),
            new GenericArray(new Object[] {1L << 40, 2L}),
            "[1, null, 3]",
            "[1, [1, null, 3]]",
            "[1099511627776, 2]"));
    all.add(
        new Change(
            "map<string,int> -> map<string,bigint>",
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.INT()),
            DataTypes.MAP(DataTypes.STRING().notNull(), DataTypes.BIGINT()),
            List.of(
                SchemaChange.updateColumnType(
                    new String[] {"v", "value"}, DataTypes.BIGINT(), true)),
            new GenericMap(Map.of(str("k"), 5)),
            new GenericMap(Map.of(str("k"), 1L << 40)),
            "{k=5}",
            "[1, {k=5}]",
            "{k=1099511627776}"));
    all.add(
        new Change(
            "row<a int> -> row<a bigint, b string>",
            DataTypes.ROW(DataTypes.FIELD(10, "a", DataTypes.INT())),
            DataTypes.ROW(
                DataTypes.FIELD(10, "a", DataTypes.BIGINT()),
                DataTypes.FIELD(11, "b", DataTypes.STRING())),
            List.of(
                SchemaChange.updateColumnType(new String[] {"v", "a"}, DataTypes.BIGINT(), true),
                SchemaChange.addColumn(new String[] {"v", "b"}, DataTypes.STRING(), null, null)),
            GenericRow.of(7),
            GenericRow.of(1L << 40, str("new")),
            "(7, null)",
            "[1, (7)]",
            "(1099511627776, new)"));
    all.add(
        new Change(
            "int not null -> int",
            DataTypes.INT().notNull(),
            DataTypes.INT(),
            List.of(SchemaChange.updateColumnNullability("v", true)),
            42,
            null,
            "42",
            "[1, 42]",
            "null"));
    all.add(
        new Change(
            "added column",
            null,
            DataTypes.BIGINT(),
            List.of(SchemaChange.addColumn("v", DataTypes.BIGINT())),
            null,
            1L << 40,
            "null",
            "[1]",
            "1099511627776"));
    return all;
  }

  static Stream<Arguments> changesPerProducer() {
    return Stream.of(ChangelogProducer.INPUT, ChangelogProducer.LOOKUP)
        .flatMap(producer -> changes().stream().map(change -> Arguments.of(change, producer)));
  }

  private static Change widen(
      String name, DataType from, DataType to, Object oldValue, Object newValue) {
    return new Change(
        name,
        from,
        to,
        List.of(SchemaChange.updateColumnType("v", to, true)),
        oldValue,
        newValue,
        text(oldValue),
        "[1, " + text(oldValue) + "]",
        text(newValue));
  }

  @BeforeEach
  void setUp() {
    catalog = TestTables.localCatalog(dir.resolve("warehouse"));
    pool = TestTables.smallPool(catalog, dir, "sink-0");
    compactor = new Compactor(CompactionSettings.defaults("compactor"), dir.resolve("compactor"));
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.close();
    catalog.close();
  }

  @ParameterizedTest(name = "{0}, changelog-producer={1}")
  @MethodSource("changesPerProducer")
  void rowsWrittenBeforeAndAfterAChangeReadWithTheirValuesInEveryStartMode(
      Change change, ChangelogProducer producer) throws Exception {
    Identifier id = Identifier.create("cdc", "t");
    RowType.Builder columns = RowType.builder().field("id", DataTypes.INT().notNull());
    if (change.from() != null) {
      columns.field("v", change.from());
    }
    RowType before = columns.build();
    FileStoreTable table =
        LakeTables.createOrOpen(
            catalog,
            new TableSpec(
                id,
                before,
                List.of("id"),
                new TableLayout(
                    List.of(), 1, MergeEngine.DEDUPLICATE, producer, List.of(), Map.of())));
    commit(
        id,
        change.from() == null
            ? GenericRow.ofKind(RowKind.INSERT, 1)
            : GenericRow.ofKind(RowKind.INSERT, 1, change.oldValue()));
    long firstCommitMillis = table.snapshotManager().latestSnapshot().timeMillis();

    // readers on the old schema, part-way through or caught up, then the table changes
    ChangelogReader full = reader(table, new StartPosition.FullThenChanges(), "full");
    ChangelogReader fromFirst = reader(table, new StartPosition.FromSnapshot(1), "from-first");
    ChangelogReader byTime =
        reader(table, new StartPosition.FromTimestamp(firstCommitMillis), "by-time");
    ChangelogReader latest = reader(table, new StartPosition.Latest(), "latest");
    assertThat(drain(full)).containsExactly("+I - -> " + change.oldRowOnOldSchema());
    assertThat(drain(latest)).isEmpty();

    catalog.alterTable(id, change.changes(), false);
    pool.writer(id).reopen(Map.of(P0, offset));
    commit(
        id,
        GenericRow.ofKind(RowKind.INSERT, 2, change.newValue()),
        GenericRow.ofKind(RowKind.UPDATE_AFTER, 1, change.newValue()));
    String oldRow = "[1, " + change.oldText() + "]";
    String newRow1 = "[1, " + change.newText() + "]";
    String newRow2 = "[2, " + change.newText() + "]";

    List<String> afterChange =
        producer == ChangelogProducer.LOOKUP
            ? List.of("+U " + oldRow + " -> " + newRow1, "+I - -> " + newRow2)
            : List.of("+I - -> " + newRow2, "+U - -> " + newRow1);
    assertThat(drain(full))
        .as("a reader opened on the old schema")
        .containsExactlyInAnyOrderElementsOf(afterChange);
    assertThat(drain(latest)).containsExactlyInAnyOrderElementsOf(afterChange);
    List<String> everything = new ArrayList<>();
    everything.add("+I - -> " + oldRow);
    everything.addAll(afterChange);
    List<String> everythingOnOldReaders = new ArrayList<>(everything);
    everythingOnOldReaders.set(0, "+I - -> " + change.oldRowOnOldSchema());
    assertThat(drain(fromFirst)).containsExactlyInAnyOrderElementsOf(everythingOnOldReaders);
    assertThat(drain(byTime)).containsExactlyInAnyOrderElementsOf(everythingOnOldReaders);

    // readers opened on the new schema read the old rows too, before and after a full compaction
    FileStoreTable changed = LakeTables.open(catalog, id);
    try (ChangelogReader again = reader(changed, new StartPosition.FromSnapshot(1), "again")) {
      assertThat(drain(again)).containsExactlyInAnyOrderElementsOf(everything);
    }
    commit(id, GenericRow.ofKind(RowKind.INSERT, 3, change.newValue()));
    compactor.compact(LakeTables.open(catalog, id), true);
    try (ChangelogReader state =
        reader(LakeTables.open(catalog, id), new StartPosition.FullThenChanges(), "state")) {
      assertThat(drain(state))
          .containsExactlyInAnyOrder(
              "+I - -> " + newRow1, "+I - -> " + newRow2, "+I - -> [3, " + change.newText() + "]");
    }
    for (ChangelogReader reader : List.of(full, fromFirst, byTime, latest)) {
      reader.close();
    }
  }

  /**
   * A change the sink never makes (narrowing a decimal, done by another engine) leaves values the
   * column can no longer hold: the reader names the table, the snapshot, the column and what to do.
   */
  @org.junit.jupiter.api.Test
  void aValueTheColumnCannotHoldAnyMoreFailsNamingTableSnapshotAndColumn() throws Exception {
    Identifier id = Identifier.create("cdc", "narrowed");
    RowType rowType =
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("price", DataTypes.DECIMAL(14, 4))
            .build();
    LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            id,
            rowType,
            List.of("id"),
            new TableLayout(
                List.of(),
                1,
                MergeEngine.DEDUPLICATE,
                ChangelogProducer.INPUT,
                List.of(),
                Map.of())));
    commit(id, GenericRow.ofKind(RowKind.INSERT, 1, decimal("1234567890.1234", 14)));
    catalog.alterTable(
        id, List.of(SchemaChange.updateColumnType("price", DataTypes.DECIMAL(10, 2), true)), false);

    try (ChangelogReader reader =
        reader(LakeTables.open(catalog, id), new StartPosition.FromSnapshot(1), "narrowed")) {
      assertThatThrownBy(reader::poll)
          .isInstanceOf(UnreadableSnapshotException.class)
          .hasMessageContaining("cdc.narrowed")
          .hasMessageContaining("snapshot 1")
          .hasMessageContaining("column 'price'")
          .hasMessageContaining("DECIMAL(10, 2)")
          .hasMessageContaining("ALTER TABLE")
          .satisfies(e -> assertThat(((UnreadableSnapshotException) e).snapshotId()).isEqualTo(1));
    }
  }

  private void commit(Identifier id, GenericRow... rows) {
    TableWriter writer = pool.writer(id);
    for (GenericRow row : rows) {
      writer.write(row);
    }
    offset += rows.length;
    writer.commit(Map.of(P0, offset));
    FileStoreTable table = LakeTables.open(catalog, id);
    if (table.coreOptions().changelogProducer()
        == org.apache.paimon.CoreOptions.ChangelogProducer.LOOKUP) {
      compactor.compact(table, false);
    }
  }

  private static ChangelogReader reader(FileStoreTable table, StartPosition start, String name) {
    return new ChangelogReader(table, name, Set.of(), start, Optional.empty(), 100);
  }

  private static List<String> drain(ChangelogReader reader) {
    List<String> changes = new ArrayList<>();
    for (Optional<ChangeBatch> batch = reader.poll(); batch.isPresent(); batch = reader.poll()) {
      for (ChangeRow change : batch.get().changes()) {
        changes.add(
            change.kind().shortString()
                + " "
                + (change.before() == null ? "-" : render(change.before(), batch.get().rowType()))
                + " -> "
                + (change.after() == null ? "-" : render(change.after(), batch.get().rowType())));
      }
    }
    return changes;
  }

  private static String render(InternalRow row, RowType rowType) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < rowType.getFieldCount(); i++) {
      values.add(
          text(
              InternalRow.createFieldGetter(rowType.getTypeAt(i), i).getFieldOrNull(row),
              rowType.getTypeAt(i)));
    }
    return values.toString();
  }

  /** A decimal as a column of {@code precision} and the value's scale holds it. */
  private static Decimal decimal(String value, int precision) {
    BigDecimal decimal = new BigDecimal(value);
    return Decimal.fromBigDecimal(decimal, precision, decimal.scale());
  }

  private static BinaryString str(String value) {
    return BinaryString.fromString(value);
  }

  private static String text(Object value) {
    return text(value, null);
  }

  /** Values as text, independent of the type they are read with (1.50 and 1.5000 differ). */
  private static String text(Object value, DataType type) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Decimal decimal) {
      return decimal.toBigDecimal().stripTrailingZeros().toPlainString();
    }
    if (value instanceof byte[] bytes) {
      return java.util.Arrays.toString(bytes);
    }
    if (value instanceof Timestamp timestamp) {
      return timestamp.toLocalDateTime().toString();
    }
    if (value instanceof Float f) {
      return Double.toString(f);
    }
    if (value instanceof Number number && !(value instanceof Double)) {
      return Long.toString(number.longValue());
    }
    if (value instanceof InternalArray array) {
      DataType element =
          type == null ? null : ((org.apache.paimon.types.ArrayType) type).getElementType();
      List<String> items = new ArrayList<>();
      for (int i = 0; i < array.size(); i++) {
        items.add(
            text(
                element == null
                    ? ((GenericArray) array).toObjectArray()[i]
                    : InternalArray.createElementGetter(element).getElementOrNull(array, i),
                element));
      }
      return items.toString();
    }
    if (value instanceof InternalMap map) {
      if (type == null) {
        return ((GenericMap) map).toString();
      }
      org.apache.paimon.types.MapType mapType = (org.apache.paimon.types.MapType) type;
      StringBuilder out = new StringBuilder("{");
      for (int i = 0; i < map.size(); i++) {
        out.append(i == 0 ? "" : ", ")
            .append(
                text(
                    InternalArray.createElementGetter(mapType.getKeyType())
                        .getElementOrNull(map.keyArray(), i),
                    mapType.getKeyType()))
            .append('=')
            .append(
                text(
                    InternalArray.createElementGetter(mapType.getValueType())
                        .getElementOrNull(map.valueArray(), i),
                    mapType.getValueType()));
      }
      return out.append('}').toString();
    }
    if (value instanceof InternalRow row && type instanceof RowType rowType) {
      List<String> fields = new ArrayList<>();
      for (int i = 0; i < rowType.getFieldCount(); i++) {
        fields.add(
            text(
                InternalRow.createFieldGetter(rowType.getTypeAt(i), i).getFieldOrNull(row),
                rowType.getTypeAt(i)));
      }
      return "(" + String.join(", ", fields) + ")";
    }
    return value.toString();
  }
}
