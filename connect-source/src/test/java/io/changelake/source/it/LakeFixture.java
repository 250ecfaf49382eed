package io.changelake.source.it;

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
import org.apache.paimon.schema.Schema;
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

/**
 * Paimon tables for the integration tests, written with Paimon's own API (lsm-writer's writers are
 * built for the sink's commit protocol; tests need plain commits of chosen row kinds). Tables have
 * {@code id INT} as primary key, {@code name STRING}, {@code qty INT} and any added columns.
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

  /** Creates {@code db.table} with {@code buckets} fixed buckets and the given producer. */
  Identifier createTable(String database, String table, int buckets, String changelogProducer)
      throws Exception {
    catalog.createDatabase(database, true);
    Identifier id = Identifier.create(database, table);
    Schema schema =
        Schema.newBuilder()
            .column("id", DataTypes.INT().notNull())
            .column("name", DataTypes.STRING())
            .column("qty", DataTypes.INT())
            .primaryKey("id")
            .option("bucket", Integer.toString(buckets))
            .option("changelog-producer", changelogProducer)
            // the source resumes from old snapshots in these tests: keep them
            .option("snapshot.num-retained.min", "1000")
            .option("snapshot.num-retained.max", "1000")
            .build();
    catalog.createTable(id, schema, false);
    return id;
  }

  FileStoreTable table(Identifier id) throws Exception {
    return (FileStoreTable) catalog.getTable(id);
  }

  void addColumn(Identifier id, String name, DataType type) throws Exception {
    closeWriter(id);
    catalog.alterTable(id, SchemaChange.addColumn(name, type), false);
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
