package io.changelake.e2e.bench;

import static io.changelake.lsm.testing.LakeRows.insert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.configs.rest.ConnectClient;
import io.changelake.configs.rest.ConnectEndpoint;
import io.changelake.console.ConsoleSettings;
import io.changelake.console.server.ConsoleServer;
import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.lsm.commit.CommitMark;
import io.changelake.lsm.commit.SourcePartition;
import io.changelake.lsm.commit.SourceProgress;
import io.changelake.lsm.table.LakeTables;
import io.changelake.lsm.testing.TestTables;
import io.changelake.lsm.write.WriterPool;
import io.changelake.testkit.connect.ConnectPlatform;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;

/**
 * The console on a big lake (issue 17): {@code tables} real Paimon tables on disk, each with a few
 * rows committed the way the sink commits (offsets of one topic and a commit mark with a source
 * time), one Changelake sink connector on the platform reading that topic, and the console's list
 * requests timed from outside: the pipelines graph (every table linked to the sink, with its
 * freshness) and the table list, first on a console just started (nothing cached) and then warm.
 */
final class ConsoleListing {
  static final String MEASUREMENT = "console";
  static final String PIPELINES = "pipelines graph";
  static final String TABLES = "table list";

  private static final String DATABASE = "console_bench";
  private static final String TOPIC = "console-bench";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConnectPlatform platform;
  private final Results results;
  private final HttpClient http = HttpClient.newHttpClient();

  ConsoleListing(ConnectPlatform platform, Results results) {
    this.platform = platform;
    this.results = results;
  }

  /**
   * Fills the lake, then {@code consoles} times starts a fresh console and times its first and
   * {@code warm} following requests of each list.
   */
  void run(Path warehouse, int tables, int consoles, int warm) {
    long t0 = System.nanoTime();
    fill(warehouse, tables);
    results.add(MEASUREMENT, "setup", 0, "fill_s", (System.nanoTime() - t0) / 1e9, "s");
    results.add(MEASUREMENT, "setup", 0, "tables", tables, "");
    platform.createTopic(TOPIC, 1);
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, TOPIC, DATABASE);
    // the graph links a table to a sink by the topics the sink is configured with (or KIP-558
    // tracked, which needs records); a regex with no records would link nothing
    sink.remove("topics.regex");
    sink.put("topics", TOPIC);
    platform.deploy("console-bench-sink", sink, 1);
    String connectUrl = platform.cluster().workers().iterator().next().url().toString();
    for (int run = 1; run <= consoles; run++) {
      try (ConsoleServer console = start(connectUrl, warehouse)) {
        // the machine is shared: say how busy it was while this console was timed
        results.add(
            MEASUREMENT,
            "setup",
            run,
            "load_average",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
            "");
        time(console, "api/pipelines", PIPELINES, run, "first_ms", tables);
        time(console, "api/tables", TABLES, run, "first_ms", tables);
        for (int i = 0; i < warm; i++) {
          time(console, "api/pipelines", PIPELINES, run, "warm_ms", tables);
          time(console, "api/tables", TABLES, run, "warm_ms", tables);
        }
      }
    }
    platform.delete("console-bench-sink");
  }

  private ConsoleServer start(String connectUrl, Path warehouse) {
    return ConsoleServer.start(
        new ConsoleSettings(
            new InetSocketAddress("127.0.0.1", 0),
            new ConnectClient(ConnectEndpoint.plain(connectUrl)),
            Map.of("warehouse", warehouse.toUri().toString()),
            Optional.of(platform.bootstrapServers()),
            false,
            Optional.empty(),
            Optional.empty()));
  }

  private void time(
      ConsoleServer console, String path, String caseName, int run, String metric, int tables) {
    long t0 = System.nanoTime();
    JsonNode answer = get(console.url().resolve(path));
    double ms = (System.nanoTime() - t0) / 1e6;
    int shown = caseName.equals(PIPELINES) ? tableNodes(answer) : answer.size();
    if (shown != tables) {
      throw new AssertionError(
          path + " shows " + shown + " of the " + tables + " tables: " + answer.toString());
    }
    results.add(MEASUREMENT, tables + " tables / " + caseName, run, metric, ms, "ms");
  }

  private static int tableNodes(JsonNode pipelines) {
    int tables = 0;
    for (JsonNode pipeline : pipelines.get("pipelines")) {
      for (JsonNode node : pipeline.get("nodes")) {
        // a table counts when the sink links it and its freshness was computed
        if (node.get("kind").asText().equals("table") && node.hasNonNull("freshnessMs")) {
          tables++;
        }
      }
    }
    return tables;
  }

  private JsonNode get(URI uri) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new AssertionError(
            uri + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Tables {@code t0000…}, three rows and one commit each, as the sink would have left them. */
  private static void fill(Path warehouse, int tables) {
    SourcePartition partition = new SourcePartition(TOPIC, 0);
    long now = System.currentTimeMillis();
    String mark =
        new CommitMark(
                "POSTGRES_LSN:1000",
                Optional.empty(),
                Optional.of(new CommitMark.Stream("POSTGRES_LSN:900", now, "bench/bench")))
            .encode()
            .orElseThrow();
    try (Catalog catalog = TestTables.localCatalog(warehouse);
        WriterPool pool =
            TestTables.smallPool(catalog, warehouse.resolveSibling("spill"), "bench")) {
      List<Identifier> ids = new ArrayList<>();
      for (int t = 0; t < tables; t++) {
        Identifier id = Identifier.create(DATABASE, String.format("t%04d", t));
        LakeTables.createOrOpen(catalog, TestTables.spec(DATABASE, id.getObjectName(), 1));
        ids.add(id);
      }
      for (Identifier id : ids) {
        for (int row = 0; row < 3; row++) {
          pool.writer(id).write(insert(row, "row " + row, (long) row));
        }
        // offset 0: the idle sink, which reads the committed offsets back, starts at the beginning
        pool.writer(id).commit(new SourceProgress(Map.of(partition, 0L), Map.of(partition, mark)));
        pool.closeIdle();
      }
    } catch (Exception e) {
      throw new IllegalStateException("Cannot fill the console benchmark's lake", e);
    }
  }
}
