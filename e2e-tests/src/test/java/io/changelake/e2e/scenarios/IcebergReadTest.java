package io.changelake.e2e.scenarios;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Scenario 10: a table the sink writes with Paimon's Iceberg-compatible metadata and full
 * compaction, read through iceberg-core and iceberg-data alone (no Paimon code), equals the
 * database — and so equals the Paimon read, which the same comparison checks first.
 */
class IcebergReadTest extends PipelineTestBase {

  @Test
  void icebergReadEqualsPaimonRead() throws Exception {
    createDatabase("s10");
    pg.execute(
        "s10",
        "CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10,2),"
            + " updated timestamp, day date)",
        "INSERT INTO items SELECT i, 'item ' || i, i * 1.25, timestamp '2024-05-01 10:00:00.123456'"
            + " + i * interval '1 hour', date '2024-05-01' + i FROM generate_series(1, 80) i");
    startPipeline(
        "s10",
        "public.items",
        Map.of(
            "table.option.metadata.iceberg.storage", "table-location",
            "compaction.full", "true",
            "compaction.interval.ms", "2000"));
    awaitLakeEqualsDatabase("s10", "items");

    pg.execute(
        "s10",
        "UPDATE items SET price = price * 2, name = name || ' (2x)' WHERE id % 3 = 0",
        "DELETE FROM items WHERE id % 10 = 0",
        "INSERT INTO items VALUES (100, 'new', 9.99, NULL, NULL)");
    awaitLakeEqualsDatabase("s10", "items");

    Path location = warehouse.resolve("s10.db").resolve("items");
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, "s10", "public", "items"),
        new TableComparison.TableReader() {
          @Override
          public List<Map<String, Object>> read() {
            return readIceberg(location);
          }

          @Override
          public String toString() {
            return "Iceberg table at " + location;
          }
        },
        CATCH_UP,
        () -> connect.failure("s10-pg", "s10-sink"));
  }

  /** The rows Iceberg's own reader sees, from the metadata Paimon keeps beside the table. */
  private static List<Map<String, Object>> readIceberg(Path location) {
    try {
      Table table = new HadoopTables(new Configuration()).load(location.toString());
      List<Map<String, Object>> rows = new ArrayList<>();
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record r : records) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (Types.NestedField f : table.schema().columns()) {
            row.put(f.name(), r.getField(f.name()));
          }
          rows.add(row);
        }
      }
      return rows;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
