package io.changelake.lsm.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.rest.exceptions.NotAuthorizedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LakeCatalogsTest {
  @TempDir Path dir;

  @Test
  void aLocalWarehouseIsConfiguredFromPrefixedConnectorProperties() throws Exception {
    Path warehouse = dir.resolve("lake");
    Map<String, String> props =
        Map.of(
            "paimon.warehouse", warehouse.toString(),
            "paimon.cache-enabled", "false",
            "topics", "not.a.catalog.option");

    assertThat(LakeCatalogs.catalogOptions(props))
        .isEqualTo(Map.of("warehouse", warehouse.toString(), "cache-enabled", "false"));
    try (Catalog catalog = LakeCatalogs.open(props)) {
      LakeTables.createOrOpen(catalog, TestTables.spec("db", "t", 1));
      assertThat(catalog.listTables("db")).containsExactly("t");
      assertThat(catalog.getTable(Identifier.create("db", "t"))).isNotNull();
    }
    assertThat(Files.isDirectory(warehouse.resolve("db.db/t/schema"))).isTrue();
  }

  @Test
  void aMissingWarehouseSaysWhatToSet() {
    assertThatThrownBy(() -> LakeCatalogs.open(Map.of("paimon.s3.endpoint", "http://x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("paimon.warehouse");
  }

  @Test
  void anUnknownMetastoreNamesTheWarehouseAndTheOptions() {
    assertThatThrownBy(
            () ->
                LakeCatalogs.open(
                    Map.of(
                        "paimon.warehouse", dir.toString(), "paimon.metastore", "no-such-store")))
        .hasMessageContaining(dir.toString())
        .hasMessageContaining("paimon.*");
  }

  /**
   * What Paimon's JdbcCatalog throws when another task created its tables first (PostgreSQL): a
   * duplicate in its type catalog, or the table's row type already there (seen in CI:
   * S3ConcurrentCommitTest, and e2e JdbcCatalogFirstOpenTest on real PostgreSQL).
   */
  @ParameterizedTest
  @CsvSource({
    "23505, duplicate key value violates unique constraint \"pg_type_typname_nsp_index\"",
    "42710, type \"paimon_tables\" already exists"
  })
  void aLostRaceToCreateTheJdbcCatalogTablesIsRetried(String state, String message)
      throws Exception {
    Path warehouse = dir.resolve("lake");
    AtomicInteger attempts = new AtomicInteger();
    RuntimeException lostRace =
        new RuntimeException("Cannot initialize JDBC catalog", new SQLException(message, state));
    try (Catalog catalog =
        LakeCatalogs.open(
            warehouse.toString(),
            () -> {
              if (attempts.incrementAndGet() == 1) {
                throw lostRace;
              }
              return LakeCatalogs.open(Map.of("paimon.warehouse", warehouse.toString()));
            })) {
      assertThat(catalog.listDatabases()).isEmpty();
    }
    assertThat(attempts).hasValue(2);
  }

  @Test
  void otherJdbcFailuresAreNotRetried() {
    AtomicInteger attempts = new AtomicInteger();
    RuntimeException wrongPassword =
        new RuntimeException(
            "Failed to connect: jdbc:postgresql://db/paimon",
            new SQLException("password authentication failed for user \"paimon\"", "28P01"));
    assertThatThrownBy(
            () ->
                LakeCatalogs.open(
                    "s3://lake/warehouse",
                    () -> {
                      attempts.incrementAndGet();
                      throw wrongPassword;
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://lake/warehouse")
        .hasMessageContaining("password authentication failed")
        .hasMessageContaining("jdbc.user");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void aRestCatalogRefusingTheTokenNamesTheServerAndTheTokenOptions() {
    Map<String, String> rest =
        Map.of("metastore", "rest", "uri", "http://catalog:8181", "warehouse", "lake");
    assertThatThrownBy(
            () ->
                LakeCatalogs.open(
                    rest,
                    () -> {
                      // what Paimon's REST client throws on the server's 401
                      throw new NotAuthorizedException("Not authorized: %s", "bad token");
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("REST catalog http://catalog:8181 (warehouse 'lake')")
        .hasMessageContaining("Not authorized: bad token")
        .hasMessageContaining("refused the credentials")
        .hasMessageContaining("paimon.token to a token it accepts");
  }

  @Test
  void anUnreachableRestCatalogNamesTheServerAndTheOptionsToCheck() {
    Map<String, String> rest =
        Map.of("metastore", "rest", "uri", "http://catalog:8181", "warehouse", "lake");
    assertThatThrownBy(
            () ->
                LakeCatalogs.open(
                    rest,
                    () -> {
                      throw new RuntimeException("Connection refused");
                    }))
        .hasMessageContaining("REST catalog http://catalog:8181")
        .hasMessageContaining("paimon.uri (the server's base URL)")
        .hasMessageNotContaining("refused the credentials");
  }

  @Test
  void aRaceLostOnEveryAttemptFailsWithTheCause() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(
            () ->
                LakeCatalogs.open(
                    "s3://lake/warehouse",
                    () -> {
                      attempts.incrementAndGet();
                      throw new RuntimeException(
                          "Cannot initialize JDBC catalog",
                          new SQLException("relation \"paimon_tables\" already exists", "42P07"));
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot initialize JDBC catalog");
    assertThat(attempts).hasValue(5);
  }
}
