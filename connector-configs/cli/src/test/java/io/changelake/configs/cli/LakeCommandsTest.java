package io.changelake.configs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code changelake lake ...} on a real Paimon table on disk: two commits, a column added, a
 * consumer registered — what each command shows in text and in {@code -o json}.
 */
class LakeCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static String warehouse;

  @BeforeAll
  static void createTable() throws Exception {
    warehouse = dir.resolve("lake").toUri().toString();
    Identifier id = Identifier.create("shop", "customers");
    try (Catalog catalog =
        CatalogFactory.createCatalog(
            CatalogContext.create(Options.fromMap(Map.of("warehouse", warehouse))))) {
      catalog.createDatabase("shop", true);
      catalog.createTable(
          id,
          Schema.newBuilder()
              .column("id", DataTypes.BIGINT().notNull())
              .column("name", DataTypes.STRING())
              .primaryKey("id")
              .option("bucket", "2")
              .build(),
          false);
      write((FileStoreTable) catalog.getTable(id), 1, 2, 3);
      catalog.alterTable(id, SchemaChange.addColumn("city", DataTypes.STRING()), false);
      FileStoreTable table = (FileStoreTable) catalog.getTable(id);
      write(table, 4, 5);
      new ConsumerManager(table.fileIO(), table.location())
          .resetConsumer("changelog-reader", new Consumer(2));
    }
  }

  private static void write(FileStoreTable table, long... ids) throws Exception {
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    int columns = table.rowType().getFieldCount();
    try (BatchTableWrite write = builder.newWrite();
        BatchTableCommit commit = builder.newCommit()) {
      for (long id : ids) {
        GenericRow row = new GenericRow(columns);
        row.setField(0, id);
        row.setField(1, BinaryString.fromString("customer " + id));
        write.write(row);
      }
      commit.commit(write.prepareCommit());
    }
  }

  private static CliRun lake(String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "lake";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "-w";
    all[args.length + 2] = warehouse;
    return CliRun.of(all);
  }

  @Test
  void tablesListsEachTableWithItsKeyBucketsAndLatestSnapshot() throws Exception {
    CliRun text = lake("tables");
    assertThat(text.exitCode()).as(text.all()).isZero();
    assertThat(text.out()).contains("shop.customers").contains("primary key");

    CliRun json = lake("tables", "-o", "json");
    JsonNode table = JSON.readTree(json.out()).path("tables").path(0);
    assertThat(table.path("table").asText()).isEqualTo("shop.customers");
    assertThat(table.path("primary_keys").toString()).isEqualTo("[\"id\"]");
    assertThat(table.path("buckets").asText()).isEqualTo("2");
    assertThat(table.path("latest_snapshot").asLong()).isEqualTo(2);
    assertThat(table.path("total_records").asLong()).isEqualTo(5);
    assertThat(table.path("schema_id").asLong()).isEqualTo(1);
  }

  @Test
  void snapshotsListEveryCommitFromTheSystemTable() throws Exception {
    CliRun json = lake("snapshots", "shop.customers", "-o", "json");

    assertThat(json.exitCode()).as(json.all()).isZero();
    List<Long> deltas =
        JSON.readTree(json.out()).path("snapshots").findValues("delta_record_count").stream()
            .map(JsonNode::asLong)
            .toList();
    assertThat(deltas).containsExactly(3L, 2L);
  }

  @Test
  void schemasShowTheHistoryAsChanges() throws Exception {
    CliRun text = lake("schemas", "shop.customers");

    assertThat(text.exitCode()).as(text.all()).isZero();
    assertThat(text.out())
        .contains("schema 0")
        .contains("    id BIGINT NOT NULL")
        .contains("    primary key id")
        .contains("schema 1")
        .contains("    + column city STRING");
    JsonNode changes =
        JSON.readTree(lake("schemas", "shop.customers", "-o", "json").out())
            .path("schemas")
            .path(1)
            .path("changes");
    assertThat(changes).hasSize(1);
    assertThat(changes.path(0).path("kind").asText()).isEqualTo("add_column");
    assertThat(changes.path(0).path("name").asText()).isEqualTo("city");
  }

  @Test
  void consumersShowEachReaderAndTheSnapshotItReadsNext() throws Exception {
    CliRun text = lake("consumers", "shop.customers");

    assertThat(text.exitCode()).as(text.all()).isZero();
    assertThat(text.out()).containsPattern("changelog-reader\\s+2");
  }

  @Test
  void filesSumRowsPerBucketAndLevel() throws Exception {
    CliRun json = lake("files", "shop.customers", "-o", "json");

    assertThat(json.exitCode()).as(json.all()).isZero();
    JsonNode result = JSON.readTree(json.out());
    long rows = 0;
    for (JsonNode bucket : result.path("buckets")) {
      assertThat(bucket.path("bucket").asInt()).isBetween(0, 1);
      rows += bucket.path("records").asLong();
    }
    assertThat(rows).isEqualTo(5);
    assertThat(result.path("files").size()).isGreaterThanOrEqualTo(2);
    assertThat(lake("files", "shop.customers", "--list").out())
        .contains("level")
        .contains(".parquet");
  }

  @Test
  void anUnknownTableIsAnErrorNamingTheWarehouseAndTheFix() {
    CliRun run = lake("snapshots", "shop.nothing");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.FAILED);
    assertThat(run.err())
        .contains("No table shop.nothing in warehouse " + warehouse)
        .contains("'changelake lake tables' lists the tables there");
  }
}
