package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileRecords;
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
 * Parquet through the zstd classes Paimon's bundle carries, in one JVM. Both work: every record
 * batch the broker stored in the topic's log segment files is zstd-compressed (read from the files
 * themselves, not from the topic's setting), the sink decompressed them (the table equals the
 * database) and its data files really are zstd Parquet.
 */
class ZstdCoexistenceTest {
  @TempDir Path warehouse;

  @Test
  void zstdTopicsAndZstdParquetCoexistUnderPluginIsolation() throws Exception {
    try (PostgresServer pg = PostgresServer.start();
        ConnectPlatform connect =
            PluginWorkers.start(
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

      // what the broker stored: the record batches in the topic's log segment files
      List<String> codecs = storedBatchCodecs(connect, "zs.public.notes");
      assertThat(codecs).as("batches in the log of zs.public.notes").isNotEmpty();
      assertThat(codecs).as("compression of every stored batch").containsOnly("zstd");
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

  /** The compression codec of every record batch in the log segments of {@code topic}. */
  private static List<String> storedBatchCodecs(ConnectPlatform connect, String topic)
      throws Exception {
    List<String> codecs = new java.util.ArrayList<>();
    try (Admin admin = connect.cluster().kafka().createAdminClient()) {
      List<Integer> brokers =
          admin.describeCluster().nodes().get().stream().map(n -> n.id()).toList();
      for (var broker : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
        for (var logDir : broker.entrySet()) {
          for (TopicPartition tp : logDir.getValue().replicaInfos().keySet()) {
            if (!tp.topic().equals(topic)) {
              continue;
            }
            Path partition = Path.of(logDir.getKey()).resolve(tp.topic() + "-" + tp.partition());
            try (Stream<Path> segments = Files.list(partition)) {
              for (Path segment : segments.filter(f -> f.toString().endsWith(".log")).toList()) {
                try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
                  for (var batch : records.batches()) {
                    codecs.add(batch.compressionType().name);
                  }
                }
              }
            }
          }
        }
      }
    }
    return codecs;
  }
}
