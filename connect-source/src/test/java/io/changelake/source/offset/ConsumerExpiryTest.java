package io.changelake.source.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.source.ChangelakeSourceConnector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deleted connector's Paimon consumer stops pinning a table's snapshots once the bound passes, on
 * real tables on disk: the source connector gives every table it reads a {@code
 * consumer.expiration-time}, and Paimon's snapshot expiry (run by the table's writer) then removes
 * the abandoned consumer and the snapshots it held.
 */
class ConsumerExpiryTest {
  private static final String ABANDONED = "deleted-connector-0badf00d-buckets-0";

  @TempDir Path warehouse;
  private Catalog catalog;

  @BeforeEach
  void openCatalog() throws Exception {
    Options options = new Options();
    options.set("warehouse", warehouse.toUri().toString());
    options.set("cache-enabled", "false");
    catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
    catalog.createDatabase("db", true);
  }

  @AfterEach
  void closeCatalog() throws Exception {
    catalog.close();
  }

  @Test
  void anAbandonedConsumerOfATableWithoutExpirationStopsPinningSnapshotsOnceTheConnectorRan()
      throws Exception {
    Identifier id = createTable("flink_made", Map.of());
    commit(id, 1);
    abandonConsumerAt(id, 1, Duration.ofDays(8));
    for (int i = 2; i <= 5; i++) {
      commit(id, i);
    }
    assertThat(table(id).snapshotManager().earliestSnapshotId())
        .as("without consumer.expiration-time the abandoned consumer pins snapshot 1")
        .isEqualTo(1L);

    runConnectorOn("db.flink_made", Map.of());

    assertThat(table(id).options())
        .as("the bound the connector set: its default, 7 days")
        .containsEntry("consumer.expiration-time", Duration.ofDays(7).toMillis() + " ms");
    commit(id, 6);
    assertThat(consumers(id).consumer(ABANDONED))
        .as("the consumer abandoned 8 days ago, past the 7-day bound")
        .isEmpty();
    assertThat(table(id).snapshotManager().earliestSnapshotId())
        .as("snapshots expire again (at most 2 kept)")
        .isGreaterThan(1L);
  }

  @Test
  void aTablesOwnExpirationIsKeptAndAConsumerWithinItStays() throws Exception {
    Identifier id = createTable("own_bound", Map.of("consumer.expiration-time", "30 d"));
    commit(id, 1);
    abandonConsumerAt(id, 1, Duration.ofDays(8));

    runConnectorOn("db.own_bound", Map.of("consumer.expiration.ms", "3600000"));

    assertThat(table(id).options()).containsEntry("consumer.expiration-time", "30 d");
    for (int i = 2; i <= 5; i++) {
      commit(id, i);
    }
    assertThat(consumers(id).consumer(ABANDONED))
        .as("8 days old is within the table's own 30 days")
        .isPresent();
    assertThat(table(id).snapshotManager().earliestSnapshotId()).isEqualTo(1L);
  }

  @Test
  void aShorterConnectorBoundExpiresAConsumerSooner() throws Exception {
    Identifier id = createTable("short_bound", Map.of());
    commit(id, 1);
    abandonConsumerAt(id, 1, Duration.ofHours(2));

    runConnectorOn("db.short_bound", Map.of("consumer.expiration.ms", "3600000"));

    assertThat(table(id).options()).containsEntry("consumer.expiration-time", "3600000 ms");
    for (int i = 2; i <= 4; i++) {
      commit(id, i);
    }
    assertThat(consumers(id).consumer(ABANDONED)).as("2 hours old, bound 1 hour").isEmpty();
    assertThat(table(id).snapshotManager().earliestSnapshotId()).isGreaterThan(1L);
  }

  /** A table another engine made: no option of the sink's, at most 2 snapshots kept. */
  private Identifier createTable(String name, Map<String, String> options) throws Exception {
    Identifier id = Identifier.create("db", name);
    Schema.Builder schema =
        Schema.newBuilder()
            .column("id", DataTypes.INT().notNull())
            .column("v", DataTypes.INT())
            .primaryKey("id")
            .option("bucket", "1")
            .option("snapshot.num-retained.min", "1")
            .option("snapshot.num-retained.max", "2")
            .option("snapshot.time-retained", "1 ms");
    options.forEach(schema::option);
    catalog.createTable(id, schema.build(), false);
    return id;
  }

  private FileStoreTable table(Identifier id) throws Exception {
    return (FileStoreTable) catalog.getTable(id);
  }

  private ConsumerManager consumers(Identifier id) throws Exception {
    FileStoreTable table = table(id);
    return new ConsumerManager(table.fileIO(), table.location());
  }

  /** A reader's consumer at {@code snapshot}, last rewritten {@code ago}: its connector is gone. */
  private void abandonConsumerAt(Identifier id, long snapshot, Duration ago) throws Exception {
    consumers(id).resetConsumer(ABANDONED, new Consumer(snapshot));
    FileStoreTable table = table(id);
    Path file =
        Path.of(table.location().toUri()).resolve("consumer").resolve("consumer-" + ABANDONED);
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(ago)));
  }

  /** One batch commit, as the table's writer (which also expires snapshots and consumers). */
  private void commit(Identifier id, int value) throws Exception {
    BatchWriteBuilder builder = table(id).newBatchWriteBuilder();
    try (BatchTableWrite write = builder.newWrite();
        BatchTableCommit commit = builder.newCommit()) {
      write.write(GenericRow.of(value, value));
      commit.commit(write.prepareCommit());
    }
  }

  private void runConnectorOn(String table, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>();
    props.put("name", "source-under-test");
    props.put("paimon.warehouse", warehouse.toUri().toString());
    props.put("paimon.cache-enabled", "false");
    props.put("tables", table);
    props.putAll(extra);
    ChangelakeSourceConnector connector = new ChangelakeSourceConnector();
    connector.start(props);
    connector.stop();
  }
}
