package io.changelake.e2e.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectEndpoint;
import io.changelake.console.ConsoleSettings;
import io.changelake.console.server.ConsoleServer;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.LakeRows;
import io.changelake.lsm.testing.LakeTableReader;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.WriterPool;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The web console in headless Chromium against a real pipeline: PostgreSQL -> Debezium -> Kafka ->
 * Changelake sink (dead-letter queue on) -> Paimon -> Changelake changelog source -> Kafka, one
 * Connect cluster for the class. Every check waits on what the page shows; the pages update
 * themselves, so a test opens a page once and waits for the change to appear. The order only makes
 * the screenshots tell one story; no test needs another's changes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
  private static final String DB = "shop";
  private static final String CDC_TOPIC = "shop.public.orders";
  private static final String CHANGELOG_TOPIC = "shoplog.shop.orders";
  private static final String DLQ = "shop-dlq";

  /**
   * A credential in the capture's config (unused with sslmode=disable): must stay on the server.
   */
  private static final String SECRET = "console-test-secret-4711";

  /** The login of the console served over https off loopback, with actions enabled. */
  private static final String USER = "operator";

  private static final String PASSWORD = "console-login-0815";

  @TempDir static Path warehouse;
  @TempDir static Path profile;
  @TempDir static Path scratch;

  static PostgresServer pg;
  static ConnectPlatform connect;
  static ConsoleServer console;
  static ConsoleServer secureConsole;
  static Browser browser;

  @BeforeAll
  static void pipelineConsoleAndBrowser() {
    pg = PostgresServer.start();
    connect = PluginWorkers.start("console");
    pg.createDatabase(DB);
    pg.execute(
        DB,
        "CREATE TABLE orders (id int PRIMARY KEY, item text, qty int)",
        "INSERT INTO orders SELECT i, 'item ' || i, i FROM generate_series(1, 20) i");
    Map<String, String> capture =
        new java.util.HashMap<>(DebeziumPostgres.config(pg, DB, DB, "public.orders"));
    capture.put("database.sslmode", "disable");
    capture.put("database.sslpassword", SECRET);
    connect.deploy("shop-pg", capture, 1);
    connect.deploy(
        "shop-sink",
        ChangelakeConnectors.withDeadLetterQueue(
            ChangelakeConnectors.sink(warehouse, Pattern.quote(CDC_TOPIC), DB), DLQ),
        1);
    // changes streamed after the snapshot carry the log position and source time the table's
    // freshness is computed from (snapshot reads carry neither); the first transaction streamed
    // has no previous commit LSN, hence no stream position, so two transactions
    pg.execute(DB, "INSERT INTO orders VALUES (21, 'streamed', 21)");
    pg.execute(DB, "INSERT INTO orders VALUES (22, 'streamed too', 22)");
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, DB, "public", "orders"),
        new TableComparison.LakeTable(LakeTableReader.fileWarehouse(warehouse), DB, "orders"),
        Duration.ofSeconds(120),
        () -> connect.failure("shop-pg", "shop-sink"));
    connect.deploy(
        "shop-log", ChangelakeConnectors.source(warehouse, DB + ".orders", "shoplog"), 1);

    String connectUrl = connect.cluster().workers().iterator().next().url().toString();
    console =
        ConsoleServer.start(
            new ConsoleSettings(
                new InetSocketAddress("127.0.0.1", 0),
                new ConnectClient(ConnectEndpoint.plain(connectUrl)),
                Map.of("warehouse", warehouse.toUri().toString()),
                Optional.of(connect.bootstrapServers()),
                false,
                Optional.empty(),
                Optional.empty()));
    // bound to every interface: the console then insists on a login and TLS
    secureConsole =
        ConsoleServer.start(
            new ConsoleSettings(
                new InetSocketAddress("0.0.0.0", 0),
                new ConnectClient(ConnectEndpoint.plain(connectUrl)),
                Map.of("warehouse", warehouse.toUri().toString()),
                Optional.of(connect.bootstrapServers()),
                true,
                Optional.of(new ConsoleSettings.Login(USER, PASSWORD)),
                Optional.of(
                    new ConsoleSettings.ServerTls(
                        SelfSignedCertificate.create(scratch.resolve("console.p12"), "changeit"),
                        "changeit"))));
    browser = Browser.start(profile);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {browser, secureConsole, console, connect, pg}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        // close the rest
      }
    }
  }

  @Test
  @Order(1)
  void thePipelineGraphShowsEveryConnectorRunningFromTheDatabaseToTheChangelogTopic() {
    browser.open(page("#/pipelines"));

    for (String connector : List.of("shop-pg", "shop-sink", "shop-log")) {
      browser.await(
          connector + " RUNNING in the graph",
          d -> present(d, "g[data-node='connector:" + connector + "'][data-state='RUNNING']"));
    }
    // the whole chain in one graph: capture -> topic -> sink -> table -> source -> changelog
    String chain =
        "connector:shop-pg -> topic:"
            + CDC_TOPIC
            + ",topic:"
            + CDC_TOPIC
            + " -> connector:shop-sink,connector:shop-sink -> table:shop.orders,"
            + "table:shop.orders -> connector:shop-log,connector:shop-log -> topic:"
            + CHANGELOG_TOPIC;
    for (String edge : chain.split(",")) {
      browser.await("edge " + edge, d -> present(d, "path[data-edge='" + edge + "']"));
    }
    WebElement table =
        browser.driver().findElement(By.cssSelector("g[data-node='table:shop.orders']"));
    assertThat(table.getText()).contains("shop.orders").contains("ago");
    browser.screenshot("pipelines");
  }

  @Test
  @Order(2)
  void aDatabaseInsertShowsUpInTheTablePagesLatestSnapshot() {
    browser.open(page("#/table/shop/orders"));
    long before =
        Long.parseLong(
            browser.await(
                "the latest snapshot", d -> attribute(d, "#latest-snapshot", "data-snapshot")));

    pg.execute(DB, "INSERT INTO orders VALUES (1001, 'inserted while watching', 3)");

    browser.await(
        "the inserted row in the latest snapshot's rows",
        d -> text(d, "#rows").contains("inserted while watching"));
    assertThat(Long.parseLong(attribute(browser.driver(), "#latest-snapshot", "data-snapshot")))
        .as("a newer snapshot than when the page was opened")
        .isGreaterThan(before);
    assertThat(text(browser.driver(), "#rows-snapshot"))
        .contains(attribute(browser.driver(), "#latest-snapshot", "data-snapshot"));
  }

  @Test
  @Order(3)
  void aSchemaChangeAppearsInTheSchemaHistoryAsADiff() {
    browser.open(page("#/table/shop/orders"));

    pg.execute(
        DB,
        "ALTER TABLE orders ADD COLUMN note text",
        "INSERT INTO orders VALUES (2001, 'with a note', 1, 'the new column')");

    browser.await(
        "the added column in the schema history",
        d -> text(d, "#schema-history").contains("+ note STRING"));
    browser.await("the new row", d -> text(d, "#rows").contains("the new column"));
    browser.screenshot("table");
  }

  @Test
  @Order(4)
  void aSinkTaskKilledByItsWarehouseGoingAwayShowsFailedWithItsTraceAndARestartRevivesIt()
      throws Exception {
    Path lake = scratch.resolve("mirror-lake");
    Map<String, String> mirror =
        ChangelakeConnectors.sink(lake, Pattern.quote(CDC_TOPIC), "mirror");
    // how long the lake may be away before the task gives up (10 minutes by default)
    mirror.put("retry.max.duration.ms", "3000");
    mirror.put("retry.backoff.ms", "250");
    connect.deploy("shop-mirror", mirror, 1);
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, DB, "public", "orders"),
        new TableComparison.LakeTable(LakeTableReader.fileWarehouse(lake), "mirror", "orders"),
        Duration.ofSeconds(120),
        () -> connect.failure("shop-mirror"));

    // the warehouse goes away under the running task (an unmounted volume): a file where its
    // directory was, which no retry can write through
    Path away = scratch.resolve("mirror-lake-away");
    Files.move(lake, away);
    Files.writeString(lake, "not a warehouse");
    pg.execute(DB, "INSERT INTO orders (id, item, qty) VALUES (3001, 'while the lake is away', 1)");

    browser.open(page("#/pipelines"));
    browser.await(
        "the mirror's task FAILED",
        d -> present(d, "tr[data-task='shop-mirror/0'] span[data-state='FAILED']"));
    assertThat(text(browser.driver(), "pre[data-trace='shop-mirror/0']"))
        .contains("org.apache.kafka.connect.errors.ConnectException")
        .contains(lake.toString());
    // the sink's reason, not Connect's wrapper, above the trace; the graph node says it too
    assertThat(text(browser.driver(), "div[data-trace-reason='shop-mirror/0']"))
        .contains("shop-mirror")
        .contains(lake.toString());
    assertThat(text(browser.driver(), "g[data-node='connector:shop-mirror']"))
        .contains("1 task FAILED");
    assertThat(connect.cluster().connectorStatus("shop-mirror").tasks().get(0).state())
        .isEqualTo("FAILED");
    browser.screenshot("pipelines-failed-task");

    // the warehouse is back: a restart from the (actions-enabled) console revives the task
    Files.delete(lake);
    Files.move(away, lake);
    browser.login(USER, PASSWORD);
    try {
      browser.open(secure("#/connector/shop-mirror"));
      browser.await("the restart button", d -> present(d, "#action-restart"));
      browser.driver().findElement(By.id("action-restart")).click();
      browser.await(
          "the restart accepted",
          d -> text(d, "#action-result").contains("restart requested for shop-mirror"));
      browser.open(secure("#/pipelines"));
      browser.await(
          "the mirror's task RUNNING again",
          d -> present(d, "tr[data-task='shop-mirror/0'] span[data-state='RUNNING']"));
    } finally {
      browser.login("", "");
    }
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, DB, "public", "orders"),
        new TableComparison.LakeTable(LakeTableReader.fileWarehouse(lake), "mirror", "orders"),
        Duration.ofSeconds(120),
        () -> connect.failure("shop-mirror"));
    connect.delete("shop-mirror");
  }

  @Test
  @Order(5)
  void aBadRecordAppearsAmongTheDeadLettersWithItsOriginAndReason() throws Exception {
    RecordMetadata bad = produce(CDC_TOPIC, "{ this is not json");
    String origin = CDC_TOPIC + "-" + bad.partition() + "@" + bad.offset();

    browser.open(page("#/dead-letters"));

    String row = "tr[data-origin='" + origin + "']";
    browser.await("the dead letter from " + origin, d -> present(d, row));
    assertThat(text(browser.driver(), row + " td.reason"))
        .contains("Converting byte[] to Kafka Connect data failed");
    assertThat(text(browser.driver(), row)).contains("shop-sink").contains("VALUE_CONVERTER");
    browser.screenshot("dead-letters");
  }

  @Test
  @Order(6)
  void actionsAreRefusedWhenNotEnabledAndSecretsAreMasked() throws Exception {
    browser.open(page("#/connector/shop-pg"));
    browser.await(
        "the masked password",
        d -> text(d, "#config tr[data-key='database.sslpassword']").contains("[hidden]"));
    assertThat(browser.driver().getPageSource()).doesNotContain(SECRET);

    browser.driver().findElement(By.id("action-pause")).click();

    browser.await(
        "the refusal",
        d -> text(d, "#action-result").contains("Actions are disabled: this console is read-only"));
    assertThat(connect.cluster().connectorStatus("shop-pg").connector().state())
        .as("the capture was not paused")
        .isEqualTo("RUNNING");
    browser.screenshot("connector");
  }

  @Test
  @Order(7)
  void overHttpsWithALoginPauseAndResumeTakeEffectAndTheLagShowsWhatWaitsMeanwhile()
      throws Exception {
    assertThat(SecureHttp.status(secure("api/pipelines"), null))
        .as("no credentials")
        .isEqualTo(401);
    assertThat(SecureHttp.status(secure("api/pipelines"), USER + ":wrong"))
        .as("a wrong password")
        .isEqualTo(401);
    browser.login(USER, PASSWORD);
    try {
      browser.open(secure("#/connector/shop-sink"));
      browser.await(
          "the sink RUNNING", d -> present(d, "#connector-state span[data-state='RUNNING']"));
      assertThat(browser.driver().getCurrentUrl()).startsWith("https://");
      assertThat(text(browser.driver(), "#mode")).isEqualTo("actions enabled");

      browser.driver().findElement(By.id("action-pause")).click();
      browser.await(
          "the sink PAUSED", d -> present(d, "#connector-state span[data-state='PAUSED']"));
      assertThat(connect.cluster().connectorStatus("shop-sink").connector().state())
          .isEqualTo("PAUSED");

      pg.execute(
          DB,
          "INSERT INTO orders (id, item, qty) SELECT i, 'while paused', 1"
              + " FROM generate_series(4001, 4005) i");
      browser.open(secure("#/pipelines"));
      String sinkNode = "g[data-node='connector:shop-sink']";
      browser.await(
          "the paused sink's lag",
          d -> Pattern.compile("lag [1-9][0-9]* records").matcher(text(d, sinkNode)).find());
      assertThat(text(browser.driver(), "div.card[data-connector='shop-sink']"))
          .containsPattern("lag " + Pattern.quote(CDC_TOPIC) + ": [1-9][0-9]*");
      browser.screenshot("pipelines-lag");

      browser.open(secure("#/connector/shop-sink"));
      browser.await("the resume button", d -> present(d, "#action-resume"));
      browser.driver().findElement(By.id("action-resume")).click();
      browser.await(
          "the sink RUNNING again", d -> present(d, "#connector-state span[data-state='RUNNING']"));
      browser.open(secure("#/pipelines"));
      browser.await("no lag after the resume", d -> text(d, sinkNode).contains("lag 0 records"));
    } finally {
      browser.login("", "");
    }
    TableComparison.awaitEqual(
        () -> DbTableReader.read(pg, DB, "public", "orders"),
        new TableComparison.LakeTable(LakeTableReader.fileWarehouse(warehouse), DB, "orders"),
        Duration.ofSeconds(120),
        () -> connect.failure("shop-sink"));
  }

  @Test
  @Order(8)
  void timeTravelShowsTheRowsAsOfAnOlderSnapshot() {
    browser.open(page("#/table/shop/orders"));
    String before =
        browser.await(
            "the latest snapshot", d -> attribute(d, "#latest-snapshot", "data-snapshot"));
    pg.execute(DB, "INSERT INTO orders (id, item, qty) VALUES (5001, 'after the chosen one', 1)");
    browser.await("the new row", d -> text(d, "#rows").contains("after the chosen one"));

    new Select(browser.driver().findElement(By.id("snapshot-select"))).selectByValue(before);

    browser.await(
        "the rows at snapshot " + before,
        d -> text(d, "#rows-snapshot").equals("snapshot " + before));
    browser.await(
        "the rows as they were then", d -> !text(d, "#rows").contains("after the chosen one"));
    assertThat(text(browser.driver(), "#rows")).contains("item 1");
    new Select(browser.driver().findElement(By.id("snapshot-select"))).selectByValue("latest");
    browser.await("the latest rows again", d -> text(d, "#rows").contains("after the chosen one"));
  }

  @Test
  @Order(9)
  void aTableWithManySmallFilesShowsTheCompactionBacklogWarning() throws Exception {
    // ten commits by a write-only writer, as ingest writers are, with no compactor running:
    // ten level-0 files in one bucket
    try (Catalog catalog = TestTables.localCatalog(warehouse);
        WriterPool pool = TestTables.smallPool(catalog, scratch, "backlog-test")) {
      LakeTables.createOrOpen(catalog, TestTables.spec(DB, "backlog", 1));
      Identifier table = Identifier.create(DB, "backlog");
      for (int commit = 0; commit < 10; commit++) {
        pool.writer(table).write(LakeRows.insert(commit, "row " + commit, (long) commit));
        pool.writer(table).commit(SourceProgress.of(Map.of()));
      }
    }

    browser.open(page("#/table/shop/backlog"));

    browser.await(
        "the backlog warning",
        d ->
            text(d, "#warnings").contains("Compaction backlog: bucket 0")
                && text(d, "#warnings").contains("has 10 files in level 0"));
    assertThat(text(browser.driver(), "#files")).contains("10");
    browser.screenshot("table-warnings");
  }

  private static String secure(String route) {
    return "https://127.0.0.1:" + secureConsole.url().getPort() + "/" + route;
  }

  private static String page(String route) {
    return console.url() + route;
  }

  private static boolean present(WebDriver d, String css) {
    return !d.findElements(By.cssSelector(css)).isEmpty();
  }

  private static String text(WebDriver d, String css) {
    List<WebElement> found = d.findElements(By.cssSelector(css));
    return found.isEmpty() ? "" : found.get(0).getText();
  }

  private static String attribute(WebDriver d, String css, String name) {
    List<WebElement> found = d.findElements(By.cssSelector(css));
    return found.isEmpty() ? null : found.get(0).getAttribute(name);
  }

  private static RecordMetadata produce(String topic, String value) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, connect.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      return producer
          .send(new ProducerRecord<>(topic, null, value.getBytes(StandardCharsets.UTF_8)))
          .get();
    }
  }
}
