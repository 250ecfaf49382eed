package io.changelake.source.it;

import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Paimon tables for the integration tests: created through lsm-writer, written with Paimon's own
 * API because lsm-writer's ingest writers are write-only (a {@code lookup} table's changelog then
 * waits for its Compactor) while these tests need each commit's changelog at once ({@code
 * prepareCommit(waitCompaction=true)}) and chosen row kinds. Tables have {@code id INT} as primary
 * key, {@code name STRING}, {@code qty INT} and any added columns.
 */
final class LakeFixture implements AutoCloseable {
  private final Path warehouse;
  private final Catalog catalog;
  private final Map<Identifier, Writer> writers = new HashMap<>();

  LakeFixture(Path warehouse) {
    this.warehouse = warehouse;
    Options options = new Options();
    options.set("warehouse", warehouse.toUri().toString());
    // tests alter tables and must see the new schema at once
    options.set("cache-enabled", "false");
    this.catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  /** Connector properties pointing at this warehouse. */
  Map<String, String> catalogProps() {
    return Map.of(
        "paimon.warehouse", warehouse.toUri().toString(), "paimon.cache-enabled", "false");
  }

  /** Creates {@code db.table} through lsm-writer with {@code buckets} fixed buckets. */
  Identifier createTable(String database, String table, int buckets, String changelogProducer)
      throws Exception {
    catalog.createDatabase(database, true);
    Identifier id = Identifier.create(database, table);
    RowType rowType =
        RowType.builder()
            .field("id", DataTypes.INT().notNull())
            .field("name", DataTypes.STRING())
            .field("qty", DataTypes.INT())
            .build();
    LakeTables.createOrOpen(
        catalog,
        new TableSpec(
            id,
            rowType,
            List.of("id"),
            new TableLayout(
                List.of(),
                buckets,
                MergeEngine.DEDUPLICATE,
                ChangelogProducer.fromPaimonName(changelogProducer),
                List.of(),
                // the source resumes from old snapshots in these tests: keep them
                Map.of("snapshot.num-retained.min", "1000", "snapshot.num-retained.max", "1000"))));
    return id;
  }

  FileStoreTable table(Identifier id) throws Exception {
    return (FileStoreTable) catalog.getTable(id);
  }

  void addColumn(Identifier id, String name, DataType type) throws Exception {
    closeWriter(id);
    catalog.alterTable(id, SchemaChange.addColumn(name, type), false);
  }

  /** Any schema change, as the sink or another engine makes it. */
  void alter(Identifier id, SchemaChange... changes) throws Exception {
    closeWriter(id);
    catalog.alterTable(id, java.util.Arrays.asList(changes), false);
  }

  /**
   * Replaces the table's rows by {@code rows} in one overwrite snapshot, as another engine's INSERT
   * OVERWRITE or TRUNCATE (no rows) does.
   */
  void overwrite(Identifier id, InternalRow... rows) throws Exception {
    closeWriter(id);
    org.apache.paimon.table.sink.BatchWriteBuilder builder =
        table(id).newBatchWriteBuilder().withOverwrite();
    try (org.apache.paimon.table.sink.BatchTableWrite write = builder.newWrite();
        org.apache.paimon.table.sink.BatchTableCommit commit = builder.newCommit()) {
      for (InternalRow row : rows) {
        write.write(row);
      }
      commit.commit(write.prepareCommit());
    }
  }

  /** A row of the table's current schema; {@code values} in column order, strings as String. */
  static GenericRow row(RowKind kind, Object... values) {
    Object[] fields = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      fields[i] = values[i] instanceof String s ? BinaryString.fromString(s) : values[i];
    }
    GenericRow row = GenericRow.of(fields);
    row.setRowKind(kind);
    return row;
  }

  static GenericRow upsert(Object... values) {
    return row(RowKind.INSERT, values);
  }

  static GenericRow delete(Object... values) {
    return row(RowKind.DELETE, values);
  }

  /** Writes the rows and commits them as one snapshot (waiting for compaction, as lookup needs). */
  void commit(Identifier id, InternalRow... rows) throws Exception {
    Writer writer = writers.get(id);
    if (writer == null) {
      writer = new Writer(table(id), warehouse.resolveSibling("io-" + id.getFullName()));
      writers.put(id, writer);
    }
    writer.commit(rows);
  }

  /** The table's rows now: id -> all columns. */
  Map<Integer, List<Object>> rows(Identifier id) throws Exception {
    FileStoreTable table = table(id);
    ReadBuilder read = table.newReadBuilder();
    Map<Integer, List<Object>> rows = new TreeMap<>();
    List<DataField> fields = table.rowType().getFields();
    try (RecordReader<InternalRow> reader = read.newRead().createReader(read.newScan().plan())) {
      reader.forEachRemaining(
          row -> {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < fields.size(); i++) {
              Object value =
                  InternalRow.createFieldGetter(fields.get(i).type(), i).getFieldOrNull(row);
              values.add(value instanceof BinaryString s ? s.toString() : value);
            }
            rows.put((Integer) values.get(0), values);
          });
    }
    return rows;
  }

  private void closeWriter(Identifier id) throws Exception {
    Writer writer = writers.remove(id);
    if (writer != null) {
      writer.close();
    }
  }

  @Override
  public void close() throws Exception {
    for (Identifier id : new ArrayList<>(writers.keySet())) {
      closeWriter(id);
    }
    catalog.close();
  }

  private static final class Writer implements AutoCloseable {
    private final StreamTableWrite write;
    private final StreamTableCommit commit;
    private final IOManager ioManager;
    private long identifier;

    Writer(FileStoreTable table, Path ioDir) throws Exception {
      java.nio.file.Files.createDirectories(ioDir);
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("test-writer");
      ioManager = IOManager.create(ioDir.toString());
      write = builder.newWrite();
      write.withIOManager(ioManager);
      commit = builder.newCommit();
      // a re-opened writer continues the commit identifiers of the same user
      identifier =
          table
              .snapshotManager()
              .latestSnapshotOfUser("test-writer")
              .map(s -> s.commitIdentifier() + 1)
              .orElse(1L);
    }

    void commit(InternalRow... rows) throws Exception {
      for (InternalRow row : rows) {
        write.write(row);
      }
      List<CommitMessage> messages = write.prepareCommit(true, identifier);
      commit.commit(identifier, messages);
      identifier++;
    }

    @Override
    public void close() throws Exception {
      write.close();
      commit.close();
      ioManager.close();
    }
  }
}
