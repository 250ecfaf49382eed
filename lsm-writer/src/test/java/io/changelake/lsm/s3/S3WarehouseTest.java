package io.changelake.lsm.s3;

import static io.changelake.lsm.testing.LakeRows.delete;
import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.StartPosition;
import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.S3ProxyServer;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.TableWriter;
import io.changelake.lsm.write.WriterPool;
import io.changelake.lsm.write.WriterSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole write/commit/read cycle on an S3 warehouse served by s3proxy. */
class S3WarehouseTest {
  @TempDir static Path dir;
  private static S3ProxyServer s3;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3ProxyServer.start(dir);
    s3.createBucket("lake");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @Test
  void tablesAreWrittenCommittedAndReadBackOnS3() throws Exception {
    SourcePartition p0 = new SourcePartition("cdc.orders", 0);
    Identifier orders = Identifier.create("shop", "orders");
    try (Catalog catalog = LakeCatalogs.open(s3.connectorProperties("s3://lake/warehouse"))) {
      LakeTables.createOrOpen(
          catalog, TestTables.spec("shop", "orders", 2, ChangelogProducer.INPUT, Map.of()));
      try (WriterPool pool =
          new WriterPool(
              catalog,
              new WriterSettings("sink-0", dir.resolve("spill"), 4 << 20, Duration.ZERO))) {
        TableWriter writer = pool.writer(orders);
        writer.write(insert(1, "a", 1L));
        writer.write(insert(2, "b", 2L));
        writer.commit(Map.of(p0, 2L));
        writer.write(update(1, "a2", 3L));
        writer.write(delete(2, null, null));
        writer.commit(Map.of(p0, 4L));
      }
      FileStoreTable table = LakeTables.open(catalog, orders);
      new Compactor(CompactionSettings.defaults("compactor"), dir.resolve("compact"))
          .compact(table, true);
      table = LakeTables.open(catalog, orders);

      assertThat(LakeRows.read(table)).containsExactly(values(1, "a2", 3L));
      assertThat(CommittedOffsets.read(table, "sink-")).isEqualTo(Map.of(p0, 4L));
      try (ChangelogReader reader =
          new ChangelogReader(
              table, "src", Set.of(), new StartPosition.FromSnapshot(1), Optional.empty(), 100)) {
        ChangeBatch first = reader.poll().orElseThrow();
        assertThat(first.changes()).hasSize(2);
      }
    }
    try (Stream<Path> objects = Files.walk(s3.bucketDirectory("lake"))) {
      assertThat(objects.map(Path::toString))
          .anyMatch(path -> path.contains("warehouse/shop.db/orders/snapshot/snapshot-"))
          .anyMatch(path -> path.contains("warehouse/shop.db/orders/bucket-"));
    }
  }
}
