package io.changelake.lsm.s3;

import static io.changelake.lsm.testing.LakeRows.delete;
import static io.changelake.lsm.testing.LakeRows.insert;
import static io.changelake.lsm.testing.LakeRows.update;
import static io.changelake.lsm.testing.LakeRows.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.catalog.LakeCatalogs;
import io.changelake.lsm.changelog.ChangeBatch;
import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.StartPosition;
import io.changelake.lsm.commit.CommittedOffsets;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.compact.CompactionSettings;
import io.changelake.lsm.compact.Compactor;
import io.changelake.lsm.fault.Dependency;
import io.changelake.lsm.fault.Failure;
import io.changelake.lsm.fault.Failures;
import io.changelake.lsm.fault.LakeUnavailableException;
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
import java.util.HashMap;
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

  @Test
  void aReadWhileTheObjectStoreIsAwayFailsAsRetriableNamingTheTable() throws Exception {
    Identifier events = Identifier.create("shop", "events");
    Map<String, String> props = new HashMap<>(s3.connectorProperties("s3://lake/warehouse"));
    // S3A gives up after one attempt, so the outage outlasts its own retries at once
    props.put("paimon.s3.attempts.maximum", "1");
    props.put("paimon.s3.retry.limit", "1");
    props.put("paimon.s3.retry.interval", "100ms");
    props.put("paimon.s3.retry.throttle.limit", "1");
    props.put("paimon.s3.retry.throttle.interval", "100ms");
    props.put("paimon.s3.connection.establish.timeout", "2000");
    try (Catalog catalog = LakeCatalogs.open(props)) {
      LakeTables.createOrOpen(
          catalog, TestTables.spec("shop", "events", 2, ChangelogProducer.INPUT, Map.of()));
      try (WriterPool pool =
          new WriterPool(
              catalog,
              new WriterSettings("sink-0", dir.resolve("spill-events"), 4 << 20, Duration.ZERO))) {
        TableWriter writer = pool.writer(events);
        for (int id = 1; id <= 8; id++) {
          writer.write(insert(id, "e" + id, (long) id));
        }
        writer.commit(Map.of(new SourcePartition("cdc.events", 0), 8L));
      }
      FileStoreTable table = LakeTables.open(catalog, events);
      // one change per batch: the snapshot's two bucket files are opened one poll after another
      try (ChangelogReader reader =
          new ChangelogReader(
              table, "src", Set.of(), new StartPosition.FromSnapshot(1), Optional.empty(), 1)) {
        assertThat(reader.poll()).isPresent();
        s3.stop();
        try {
          assertThatThrownBy(
                  () -> {
                    while (reader.poll().isPresent()) {
                      // the rows of files opened before the outage
                    }
                  })
              .isInstanceOfSatisfying(
                  LakeUnavailableException.class,
                  e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(Failures.classify(e))
                        .isInstanceOfSatisfying(
                            Failure.Transient.class,
                            t -> assertThat(t.dependency()).isEqualTo(Dependency.OBJECT_STORE));
                  })
              .hasMessageContaining("Reading snapshot 1 of table shop.events failed");
        } finally {
          s3.restart();
        }
      }
    }
  }
}
