package io.changelake.source;

import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.table.MergeEngine;
import io.changelake.lsm.table.TableLayout;
import io.changelake.lsm.table.TableSpec;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/** A one-bucket deduplicate table {@code (id INT primary key, name STRING)} for source tests. */
final class IdNameTable {
  private IdNameTable() {}

  /** Creates {@code id} (and its database) with {@code rows} (id to name) in one snapshot. */
  static FileStoreTable create(Catalog catalog, Identifier id, Map<Integer, String> rows)
      throws Exception {
    LakeTables.createDatabaseIfAbsent(catalog, id.getDatabaseName());
    FileStoreTable table =
        LakeTables.createOrOpen(
            catalog,
            new TableSpec(
                id,
                RowType.builder()
                    .field("id", DataTypes.INT().notNull())
                    .field("name", DataTypes.STRING())
                    .build(),
                List.of("id"),
                new TableLayout(
                    List.of(),
                    1,
                    MergeEngine.DEDUPLICATE,
                    ChangelogProducer.INPUT,
                    List.of(),
                    Map.of())));
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    try (BatchTableWrite write = builder.newWrite();
        BatchTableCommit commit = builder.newCommit()) {
      for (Map.Entry<Integer, String> row : rows.entrySet()) {
        write.write(GenericRow.of(row.getKey(), BinaryString.fromString(row.getValue())));
      }
      commit.commit(write.prepareCommit());
    }
    return table;
  }
}
