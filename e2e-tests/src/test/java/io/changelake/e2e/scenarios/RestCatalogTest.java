package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.changelog.ItemsChangelog;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.compare.TableComparison.LakeTable;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.postgres.ChangeLoad;
import io.changelake.e2e.rest.PaimonRestCatalog;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sink and the source on a Paimon REST catalog ({@code paimon.metastore=rest}) with bearer
 * token authentication, against Paimon's own reference server on loopback: PostgreSQL -> Debezium
 * -> sink -> Paimon (REST) -> source -> topic, the table equal to the database and the changelog
 * topic replaying into it; and a wrong token stops both connectors with an error naming the catalog
 * and what to change.
 */
class RestCatalogTest extends PipelineTestBase {
  private static final String TOKEN = "changelake-test-token";

  static PaimonRestCatalog rest;

  @BeforeAll
  static void startCatalog() {
    rest = PaimonRestCatalog.start(warehouse.resolve("rest"), TOKEN);
  }

  @AfterAll
  static void stopCatalog() {
    if (rest != null) {
      rest.close();
    }
  }

  @Test
  void sinkAndSourceRunThroughARestCatalogFromPostgresBackToATopic() throws Exception {
    String db = "rest_ok";
    createDatabase(db);
    ChangeLoad.createTable(pg, db);
    connect.deploy(db + "-pg", DebeziumPostgres.config(pg, db, db, "public.items"), 1);
    connect.deploy(db + "-sink", sink(db, TOKEN), 1);
    LakeTable lake = new LakeTable(rest.catalogOptions(), db, "items");
    awaitLakeEqualsDatabase(db, lake);

    Map<String, String> source =
        new HashMap<>(ChangelakeConnectors.source(warehouse, db + ".items", db + "cl"));
    source.putAll(rest.connectorOptions(TOKEN));
    connect.deploy(db + "-source", source, 1);
    try (ChangeLoad load = ChangeLoad.start(pg, db)) {
      load.awaitRounds(15);
    }
    awaitLakeEqualsDatabase(db, lake);
    ItemsChangelog.awaitEqualsDatabase(
        connect,
        pg,
        db,
        db + "cl." + db + ".items",
        () -> connect.failure(db + "-pg", db + "-sink", db + "-source"),
        CATCH_UP);
  }

  @Test
  void aWrongTokenStopsSinkAndSourceNamingTheCatalogAndTheFix() {
    String db = "rest_denied";
    connect.cluster().configureConnector(db + "-sink", sink(db, "not-the-token"));
    Map<String, String> source =
        new HashMap<>(ChangelakeConnectors.source(warehouse, db + ".items", db + "cl"));
    source.putAll(rest.connectorOptions("not-the-token"));
    connect.cluster().configureConnector(db + "-source", source);

    for (String connector : new String[] {db + "-sink", db + "-source"}) {
      String failure =
          Awaitility.await()
              .atMost(CATCH_UP)
              .until(() -> connect.failure(connector), message -> message != null);
      assertThat(failure)
          .as(connector)
          .contains("REST catalog " + rest.uri())
          .contains("refused")
          .contains("paimon.token");
      connect.delete(connector);
    }
  }

  private static Map<String, String> sink(String db, String token) {
    Map<String, String> sink =
        new HashMap<>(ChangelakeConnectors.sink(warehouse, db + "\\..*", db));
    sink.putAll(rest.connectorOptions(token));
    return sink;
  }

  private static void awaitLakeEqualsDatabase(String db, LakeTable lake) {
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, db, "public", "items"),
        lake,
        CATCH_UP,
        () -> connect.failure(db + "-pg", db + "-sink"));
  }
}
