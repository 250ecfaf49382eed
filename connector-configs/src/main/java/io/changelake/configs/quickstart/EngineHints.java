package io.changelake.configs.quickstart;

import java.io.PrintWriter;
import org.apache.paimon.catalog.Identifier;

/** How to read a lake table with other engines: it is a plain Paimon table. */
final class EngineHints {
  private EngineHints() {}

  static void print(PrintWriter out, String warehouse, Identifier table) {
    String name = table.getFullName();
    out.println("It is a plain Paimon table: other engines read it as it is.");
    out.println();
    out.println("  Flink SQL (paimon-flink jar on the class path):");
    out.printf(
        "    CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = 'file://%s');%n",
        warehouse);
    out.printf("    SELECT * FROM lake.%s;                      -- current rows%n", name);
    out.printf(
        "    SELECT * FROM lake.%s /*+ OPTIONS('scan.mode'='from-snapshot','scan.snapshot-id'='1') */;"
            + "  -- streaming changelog%n",
        name);
    out.println("  Spark SQL (paimon-spark jar):");
    out.printf(
        "    spark-sql --conf spark.sql.catalog.lake=org.apache.paimon.spark.SparkCatalog"
            + " --conf spark.sql.catalog.lake.warehouse=file://%s%n",
        warehouse);
    out.printf("    SELECT * FROM lake.%s;  SELECT * FROM lake.%s$snapshots;%n", name, name);
    out.println("  Trino (paimon-trino plugin), etc/catalog/lake.properties:");
    out.printf("    connector.name=paimon%n    warehouse=file://%s%n", warehouse);
    out.println("  Python (pip install pypaimon):");
    out.printf(
        "    from pypaimon import CatalogFactory%n"
            + "    catalog = CatalogFactory.create({'warehouse': '%s'})%n"
            + "    rb = catalog.get_table('%s').new_read_builder()%n"
            + "    print(rb.new_read().to_pandas(rb.new_scan().plan().splits()))%n",
        warehouse, name);
    out.println("  Any Iceberg engine: create the table with Iceberg-compatible metadata");
    out.println(
        "    (sink option table.option.metadata.iceberg.storage=hadoop-catalog); Iceberg then");
    out.printf(
        "    reads %s/iceberg/%s/%s after a full compaction (compaction.full=true).%n",
        warehouse, table.getDatabaseName(), table.getObjectName());
  }
}
