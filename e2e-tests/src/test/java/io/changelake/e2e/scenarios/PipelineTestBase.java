package io.changelake.e2e.scenarios;

import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL -> Debezium -> Kafka -> Changelake sink -> Paimon, on one PostgreSQL cluster and one
 * embedded Connect cluster shared by the test class. Each test uses its own database, topic prefix
 * and Paimon database, so tests of a class do not see each other.
 */
abstract class PipelineTestBase {
  static final Duration CATCH_UP = Duration.ofSeconds(120);

  static PostgresServer pg;
  static ConnectPlatform connect;

  @TempDir static Path warehouse;

  @BeforeAll
  static void startPlatform() {
    pg = PostgresServer.start();
    connect = PluginWorkers.start("e2e");
  }

  @AfterAll
  static void stopPlatform() {
    if (connect != null) {
      connect.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  /**
   * Creates database {@code name} in PostgreSQL (the caller then creates its tables), to be
   * captured with topic prefix {@code name} into Paimon database {@code name}.
   */
  static void createDatabase(String name) {
    pg.createDatabase(name);
  }

  /** Starts Debezium on {@code tables} of database {@code name} and the sink for its topics. */
  static void startPipeline(String name, String tables, Map<String, String> sinkOverrides) {
    connect.deploy(name + "-pg", DebeziumPostgres.config(pg, name, name, tables), 1);
    Map<String, String> sink =
        new java.util.HashMap<>(ChangelakeConnectors.sink(warehouse, name + "\\..*", name));
    sink.putAll(sinkOverrides);
    connect.deploy(name + "-sink", sink, 1);
  }

  static LakeTable lakeTable(String database, String table) {
    return new LakeTable(LakeTableReader.fileWarehouse(warehouse), database, table);
  }

  /** Waits until Paimon table {@code name.table} equals PostgreSQL table {@code public.table}. */
  static void awaitLakeEqualsDatabase(String name, String table) {
    TableComparison.awaitEqual(
        () -> io.changelake.e2e.compare.DbTableReader.read(pg, name, "public", table),
        lakeTable(name, table),
        CATCH_UP,
        () -> connect.failure(name + "-pg", name + "-sink"));
  }
}
