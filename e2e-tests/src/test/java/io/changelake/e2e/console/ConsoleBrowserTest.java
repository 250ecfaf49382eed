package io.changelake.e2e.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectEndpoint;
import io.changelake.console.ConsoleSettings;
import io.changelake.console.server.ConsoleServer;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.e2e.compare.LakeTableReader;
import io.changelake.e2e.compare.TableComparison;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.ConnectPlatform;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.postgres.PostgresServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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

  @TempDir static Path warehouse;
  @TempDir static Path profile;

  static PostgresServer pg;
  static ConnectPlatform connect;
  static ConsoleServer console;
  static Browser browser;

  @BeforeAll
  static void pipelineConsoleAndBrowser() {
    pg = PostgresServer.start();
    connect = ConnectPlatform.start("console");
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
    browser = Browser.start(profile);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {browser, console, connect, pg}) {
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
  void aFailedTaskShowsFailedWithItsTrace() throws Exception {
    String topic = "shop-strict";
    connect.createTopic(topic, 1);
    Map<String, String> strict =
        ChangelakeConnectors.sink(warehouse, Pattern.quote(topic), "strict");
    strict.put("errors.tolerance", "none");
    connect.cluster().configureConnector("shop-strict-sink", strict);
    produce(topic, "\u0000not json {");

    browser.open(page("#/pipelines"));
    browser.await(
        "the strict sink's task FAILED",
        d -> present(d, "tr[data-task='shop-strict-sink/0'] span[data-state='FAILED']"));
    browser.await(
        "the failed task's trace",
        d ->
            text(d, "pre[data-trace='shop-strict-sink/0']")
                .contains("Converting byte[] to Kafka Connect data failed"));
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
