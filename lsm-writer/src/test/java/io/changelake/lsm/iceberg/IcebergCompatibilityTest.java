package io.changelake.lsm.iceberg;

import static io.changelake.lsm.testing.LakeRows.delete;
import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary-key table with Iceberg-compatible metadata, read through Iceberg's own libraries
 * (iceberg-core, iceberg-data, iceberg-parquet 1.10.0) after inserts, updates and deletes.
 */
class IcebergCompatibilityTest {
  @TempDir Path dir;

  @Test
  void icebergReadsExactlyThePaimonRowsOnceTouchedBucketsAreFullyCompacted() throws Exception {
    Identifier id = Identifier.create("shop", "orders");
    try (Catalog catalog = TestTables.localCatalog(dir.resolve("warehouse"))) {
      LakeTables.createOrOpen(
          catalog,
          TestTables.spec(
              "shop",
              "orders",
              2,
              ChangelogProducer.NONE,
              Map.of("metadata.iceberg.storage", "table-location")));
      try (WriterPool pool =
          new WriterPool(
              catalog,
              new WriterSettings("sink-0", dir.resolve("spill"), 4 << 20, Duration.ZERO))) {
        TableWriter writer = pool.writer(id);
        for (int i = 1; i <= 6; i++) {
          writer.write(insert(i, "item-" + i, i * 10L));
        }
        writer.commit(Map.of(new SourcePartition("orders", 0), 6L));
        writer.write(update(2, "item-2-changed", 21L));
        writer.write(delete(3, null, null));
        writer.write(insert(7, "item-7", 70L));
        writer.commit(Map.of(new SourcePartition("orders", 0), 9L));
      }
      FileStoreTable table = LakeTables.open(catalog, id);
      // before compaction Iceberg sees a stale view: the update, delete and new insert of the
      // second commit sit in level-0 files that Iceberg metadata of a primary-key table leaves out
      assertThat(icebergRows(table))
          .isNotEqualTo(LakeRows.read(table))
          .doesNotContain(LakeRows.values(7, "item-7", 70L));

      new Compactor(CompactionSettings.defaults("compactor"), dir.resolve("compact"))
          .compact(table, true);
      table = LakeTables.open(catalog, id);

      List<List<Object>> paimon = LakeRows.read(table);
      assertThat(paimon).hasSize(6);
      assertThat(icebergRows(table)).isEqualTo(paimon);
    }
  }

  private static List<List<Object>> icebergRows(FileStoreTable paimonTable) throws Exception {
    Table iceberg = new HadoopTables(new Configuration()).load(paimonTable.location().toString());
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg).build()) {
      for (Record record : records) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < record.size(); i++) {
          Object value = record.get(i);
          row.add(value instanceof CharSequence text ? text.toString() : value);
        }
        rows.add(row);
      }
    }
    rows.sort(Comparator.comparing(Object::toString));
    return rows;
  }
}
