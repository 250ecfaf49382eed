package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.LakeTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectPlatform;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.postgres.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.paimon.shade.org.apache.parquet.ParquetReadOptions;
import org.apache.paimon.shade.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.paimon.shade.org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DESIGN.md's zstd check: the worker compresses and decompresses Kafka batches with its own
 * zstd-jni (producer and topics set to zstd) while the isolated plugin writes zstd-compressed
 * Parquet through the zstd classes Paimon's bundle carries, in one JVM. Both work: the table equals
 * the database and its data files really are zstd Parquet.
 */
class ZstdCoexistenceTest {
  @TempDir Path warehouse;

  @Test
  void zstdTopicsAndZstdParquetCoexistUnderPluginIsolation() throws Exception {
    try (PostgresServer pg = PostgresServer.start();
        ConnectPlatform connect =
            ConnectPlatform.start(
                "zstd", 1, Map.of("producer.compression.type", "zstd"), new Properties())) {
      pg.createDatabase("zs");
      pg.execute(
          "zs",
          "CREATE TABLE notes (id int PRIMARY KEY, body text)",
          "INSERT INTO notes SELECT i, repeat('compress me ', 20) || i FROM generate_series(1, 500) i");
      Map<String, String> debezium = DebeziumPostgres.config(pg, "zs", "zs", "public.notes");
      debezium.put("topic.creation.default.compression.type", "zstd");
      connect.deploy("zs-pg", debezium, 1);
      Map<String, String> sink = ChangelakeConnectors.sink(warehouse, "zs\\..*", "zs");
      sink.put("table.option.file.compression", "zstd");
      connect.deploy("zs-sink", sink, 1);
      pg.execute("zs", "UPDATE notes SET body = body || ' again' WHERE id % 2 = 0");

      TableComparison.awaitEqual(
          () -> DbTableReader.read(pg, "zs", "public", "notes"),
          new TableComparison.LakeTable(LakeTableReader.fileWarehouse(warehouse), "zs", "notes"),
          Duration.ofSeconds(120),
          () -> connect.failure("zs-pg", "zs-sink"));

      try (Admin admin = connect.cluster().kafka().createAdminClient()) {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "zs.public.notes");
        String codec =
            admin
                .describeConfigs(List.of(topic))
                .all()
                .get()
                .get(topic)
                .get("compression.type")
                .value();
        assertThat(codec).isEqualTo("zstd");
      }
      List<Path> parquet;
      try (Stream<Path> files = Files.walk(warehouse.resolve("zs.db").resolve("notes"))) {
        parquet = files.filter(p -> p.toString().endsWith(".parquet")).toList();
      }
      assertThat(parquet).isNotEmpty();
      for (Path file : parquet) {
        var input =
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toUri()), new Configuration());
        ParquetMetadata footer;
        try (var stream = input.newStream()) {
          footer =
              ParquetFileReader.readFooter(input, ParquetReadOptions.builder().build(), stream);
        }
        for (BlockMetaData block : footer.getBlocks()) {
          for (ColumnChunkMetaData column : block.getColumns()) {
            assertThat(column.getCodec().name())
                .as(file + " " + column.getPath())
                .isEqualTo("ZSTD");
          }
        }
      }
    }
  }
}
