package io.changelake.e2e.bench;

import io.changelake.e2e.bench.Sinks.Converter;
import io.changelake.e2e.bench.Sinks.Kind;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.e2e.registry.ApicurioRegistry;
import io.changelake.testkit.connect.ConnectPlatform;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The benchmark run behind docs/benchmarks.md: every sink on the same worker and the same topics,
 * every figure the median of several repetitions, interleaved so drifting machine load hits all
 * sinks alike. Run it with {@code mvn -B -pl e2e-tests/benchmarks verify -Pbench}; sizes can be
 * changed with the system properties read by {@link BenchSettings}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChangelakeBenchmark {

  static final String SINK = "sink-throughput";
  static final String CONVERTER = "converter";
  static final String PROFILE = "profile";
  static final String MEMORY = "memory";
  static final String COST = "cost-growth";
  static final String SOURCE = "source-throughput";
  static final String LATENCY = "latency";
  static final String SCALING = ScalingRuns.MEASUREMENT;
  static final String CONSOLE = ConsoleListing.MEASUREMENT;
  static final String DURATION = "duration";

  private static BenchSettings settings;
  private static Results results;
  private static ConnectPlatform platform;
  private static TopicLoader loader;
  private static SinkRunner runner;
  private static boolean icebergInstalled;
  private static ApicurioRegistry registry;

  @BeforeAll
  static void startPlatform() throws IOException {
    settings = BenchSettings.fromSystemProperties();
    results = Results.create(settings.docsDir().resolve("benchmarks.csv"));
    deleteRecursively(settings.workDir());
    Path plugins = settings.workDir().resolve("plugins");
    Files.createDirectories(plugins);
    BenchPlugins.installDoNothing(plugins);
    try {
      BenchPlugins.installIceberg(settings.workDir().resolveSibling("bench-iceberg-plugin"));
      Path iceberg = settings.workDir().resolveSibling("bench-iceberg-plugin").resolve("iceberg");
      copyDirectory(iceberg, plugins.resolve("iceberg"));
      icebergInstalled = true;
    } catch (RuntimeException e) {
      results.failed(SINK, "iceberg", e);
    }
    Map<String, String> worker = new HashMap<>();
    worker.put("plugin.path", PluginWorkers.pluginPath() + "," + plugins);
    Properties broker = new Properties();
    broker.put("transaction.state.log.replication.factor", "1");
    broker.put("transaction.state.log.min.isr", "1");
    broker.put("offsets.topic.replication.factor", "1");
    broker.put("log.retention.bytes", "-1");
    // the embedded broker assigns a new group's partitions at once (delay 0, Kafka's test kit): a
    // 2-task connector's first task gets every partition and gives half back when the second joins.
    // -Dbench.broker.group.initial.rebalance.delay.ms=3000 measures with Kafka's own default, which
    // lets tasks started together join before the first assignment (issue 14, session 17)
    String initialRebalanceDelay =
        System.getProperty("bench.broker.group.initial.rebalance.delay.ms");
    if (initialRebalanceDelay != null) {
      broker.put("group.initial.rebalance.delay.ms", initialRebalanceDelay);
    }
    platform = PluginWorkers.start("bench", 1, worker, broker);
    loader = new TopicLoader(platform.bootstrapServers());
    runner = new SinkRunner(platform);
  }

  @AfterAll
  static void stopPlatformAndWriteReport() {
    try {
      if (runner != null) {
        runner.close();
      }
      if (platform != null) {
        platform.close();
      }
      if (registry != null) {
        registry.close();
      }
    } finally {
      if (results != null) {
        new Report(settings, results).write();
      }
    }
  }

  private long testStartNanos;

  @BeforeEach
  void startClock() {
    testStartNanos = System.nanoTime();
  }

  /** How long each part took (skipped parts too: a few ms), so a run's duration can be planned. */
  @AfterEach
  void recordDuration(TestInfo test) {
    results.add(
        DURATION,
        test.getTestMethod().map(java.lang.reflect.Method::getName).orElse(test.getDisplayName()),
        1,
        "seconds",
        (System.nanoTime() - testStartNanos) / 1e9,
        "s");
  }

  /** JsonConverter against the caching converter on the same bytes, outside Connect. */
  @Test
  @Order(1)
  void convertersInProcess() {
    if (!BenchSettings.enabled(CONVERTER)) {
      return;
    }
    for (int tables : new int[] {1, settings.manyTables()}) {
      DebeziumEvents events = new DebeziumEvents("conv", tables, settings.keySpace(), 7);
      List<DebeziumEvents.Event> sample = new ArrayList<>();
      for (int i = 0; i < settings.converterEvents(); i++) {
        sample.add(events.next());
      }
      String caseSuffix = tables == 1 ? "1 table" : tables + " tables";
      // warm-up, and a check that both converters agree on every key and value
      KeyAndValue json = KeyAndValue.of(Converter.JSON);
      KeyAndValue caching = KeyAndValue.of(Converter.CACHING);
      for (DebeziumEvents.Event e : sample) {
        if (!json.key()
                .toConnectData(e.topic(), e.key())
                .equals(caching.key().toConnectData(e.topic(), e.key()))
            || !json.value()
                .toConnectData(e.topic(), e.value())
                .equals(caching.value().toConnectData(e.topic(), e.value()))) {
          throw new AssertionError("converters disagree on an event of " + e.topic());
        }
      }
      for (int run = 1; run <= settings.repetitions(); run++) {
        for (Converter converter : List.of(Converter.JSON, Converter.CACHING)) {
          KeyAndValue instance = KeyAndValue.of(converter);
          ThreadMXBean threads = ManagementFactory.getThreadMXBean();
          int passes = 5;
          long cpu0 = threads.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          long nonNull = 0;
          for (int pass = 0; pass < passes; pass++) {
            for (DebeziumEvents.Event e : sample) {
              nonNull += instance.key().toConnectData(e.topic(), e.key()).value() == null ? 0 : 1;
              nonNull +=
                  instance.value().toConnectData(e.topic(), e.value()).value() == null ? 0 : 1;
            }
          }
          long wall = System.nanoTime() - t0;
          long cpu = threads.getCurrentThreadCpuTime() - cpu0;
          long conversions = (long) passes * sample.size();
          if (nonNull == 0) {
            throw new AssertionError("nothing converted");
          }
          String caseName = converter.label + " / " + caseSuffix;
          results.add(CONVERTER, caseName, run, "events_per_s", conversions * 1e9 / wall, "1/s");
          results.add(CONVERTER, caseName, run, "cpu_us_per_event", cpu / 1e3 / conversions, "us");
        }
      }
      sample.clear();
    }
  }

  /** The sink matrix: sinks x tasks x tables, JSON with schemas, plus the caching converter. */
  @Test
  @Order(2)
  void sinkThroughput() {
    if (!BenchSettings.enabled(SINK)) {
      return;
    }
    Workload one = Workload.load(loader, "one", 1, 2, settings.events(), settings.keySpace());
    Workload many =
        Workload.load(
            loader,
            "many",
            settings.manyTables(),
            1,
            settings.events(),
            Math.max(100, settings.keySpace() / settings.manyTables()));
    results.add(SINK, "workload", 0, "event_bytes", (double) one.bytes() / settings.events(), "B");
    Workload avro = avroWorkload();
    warmUp();
    List<String> failures = new ArrayList<>();
    for (int run = 1; run <= settings.repetitions(); run++) {
      boolean profile = run == settings.repetitions();
      for (Workload workload : List.of(one, many)) {
        for (int tasks : new int[] {1, 2}) {
          for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE, Kind.ICEBERG)) {
            SinkCase c = new SinkCase(kind, Converter.JSON, tasks, workload);
            measure(c, run, profile && tasks == 1 && workload == one, failures);
          }
          if (workload == one && tasks == 1) {
            for (Kind kind : List.of(Kind.CHANGELAKE_PARTIAL, Kind.CHANGELAKE_L0_AVRO)) {
              measure(new SinkCase(kind, Converter.JSON, tasks, workload), run, false, failures);
            }
            for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
              measure(new SinkCase(kind, Converter.CACHING, tasks, workload), run, false, failures);
              if (avro != null) {
                measure(new SinkCase(kind, Converter.AVRO, tasks, avro), run, false, failures);
              }
            }
          }
        }
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError("some sink cases failed:\n" + String.join("\n", failures));
    }
  }

  /**
   * The same events as the one-table workload, in Avro through an Apicurio Registry child process
   * (Confluent wire format, as Debezium writes them with that converter); null, with the failure
   * recorded, when the registry does not start.
   */
  private static Workload avroWorkload() {
    try {
      registry = ApicurioRegistry.launch(settings.workDir().resolve("registry"));
      registry.awaitReady(Duration.ofSeconds(120));
      Sinks.useRegistry(registry);
      DebeziumEvents events =
          new DebeziumEvents(
              "avro",
              1,
              settings.keySpace(),
              42,
              avroConverter(registry.avroConverters(), true),
              avroConverter(registry.avroConverters(), false));
      Workload avro = Workload.load(loader, events, 2, settings.events());
      results.add(
          SINK, "workload avro", 0, "event_bytes", (double) avro.bytes() / settings.events(), "B");
      return avro;
    } catch (RuntimeException e) {
      results.failed(SINK, "avro", e);
      return null;
    }
  }

  /** An AvroConverter configured from a connector's {@code key.converter.*} or value settings. */
  private static org.apache.kafka.connect.storage.Converter avroConverter(
      Map<String, String> connectorSettings, boolean isKey) {
    String prefix = isKey ? "key.converter." : "value.converter.";
    Map<String, String> config = new HashMap<>();
    connectorSettings.forEach(
        (key, value) -> {
          if (key.startsWith(prefix)) {
            config.put(key.substring(prefix.length()), value);
          }
        });
    var converter = new io.apicurio.registry.utils.converter.AvroConverter<Object>();
    converter.configure(config, isKey);
    return converter;
  }

  /**
   * One unmeasured do-nothing run on a small topic: the first connector of a worker pays for the
   * consumer offsets topic, class loading and JIT compilation.
   */
  private static void warmUp() {
    Workload warm = Workload.load(loader, "warmup", 1, 2, 5_000, 1_000);
    for (Converter converter : List.of(Converter.JSON, Converter.CACHING)) {
      runner.run(
          "warmup-" + converter.label, Sinks.doNothing(warm.regex(), 1, converter), warm.topics());
    }
  }

  /** Many tables in one task under the JVM's 1 GiB heap: the heap high-water mark. */
  @Test
  @Order(3)
  void manyTablesInOneTask() {
    if (!BenchSettings.enabled(MEMORY)) {
      return;
    }
    int tables = settings.memoryTables();
    Workload workload =
        Workload.load(loader, "mem", tables, 1, tables * settings.memoryEventsPerTable(), 50);
    List<String> failures = new ArrayList<>();
    for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
      String caseName = kind.label + " / 1 task";
      String name = "mem-" + kind.label;
      Path warehouse = settings.workDir().resolve("warehouse").resolve(name);
      Map<String, String> config =
          kind == Kind.DO_NOTHING
              ? Sinks.doNothing(workload.regex(), 1, Converter.JSON)
              : Sinks.changelake(
                  workload.regex(),
                  1,
                  Converter.JSON,
                  warehouse,
                  settings.commitIntervalMs(),
                  "deduplicate");
      try (HeapWatcher heap = new HeapWatcher()) {
        SinkRunner.Measurement m = runner.run(name, config, workload.topics());
        results.add(MEMORY, caseName, 1, "events_per_s", m.eventsPerSecond(), "1/s");
        results.add(MEMORY, caseName, 1, "peak_heap_mb", heap.peakUsedBytes() / MIB, "MiB");
        results.add(MEMORY, caseName, 1, "peak_live_heap_mb", heap.peakLiveBytes() / MIB, "MiB");
        results.add(MEMORY, caseName, 1, "max_heap_mb", HeapWatcher.maxHeapBytes() / MIB, "MiB");
      } catch (RuntimeException | AssertionError | OutOfMemoryError e) {
        results.failed(MEMORY, caseName, e);
        failures.add(caseName + ": " + e.getMessage());
      } finally {
        deleteRecursively(warehouse);
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(String.join("\n", failures));
    }
  }

  private static final double MIB = 1024.0 * 1024.0;

  /** Rate against tasks and tables at a long commit interval, reads during commit rounds. */
  @Test
  @Order(7)
  void scaling() {
    if (!BenchSettings.enabled(SCALING)) {
      return;
    }
    List<String> failures = new ScalingRuns(settings, results, loader, runner).run();
    if (!failures.isEmpty()) {
      throw new AssertionError(String.join("\n", failures));
    }
  }

  /**
   * The console's list requests on a lake of {@code bench.console.tables} tables (500): each of
   * {@code bench.console.runs} fresh consoles times its first request and {@code
   * bench.console.warm} more.
   */
  @Test
  @Order(8)
  void consoleOnManyTables() {
    if (!BenchSettings.enabled(CONSOLE)) {
      return;
    }
    try {
      new ConsoleListing(platform, results)
          .run(
              settings.workDir().resolve("warehouse").resolve("console"),
              Integer.getInteger("bench.console.tables", 500),
              Integer.getInteger("bench.console.runs", 3),
              Integer.getInteger("bench.console.warm", 7));
    } catch (RuntimeException | AssertionError e) {
      results.failed(CONSOLE, ConsoleListing.PIPELINES, e);
      throw e;
    }
  }

  /**
   * How the Changelake sink's throughput changes with the number of tables (the matrix has 1 and
   * {@code bench.tables}; this adds the other counts) and with the size of the table an
   * update-heavy load hits.
   */
  @Test
  @Order(6)
  void costGrowth() {
    if (!BenchSettings.enabled(COST)) {
      return;
    }
    List<String> failures = new ArrayList<>();
    for (int tables : settings.costTableCounts()) {
      if (tables == 1 || tables == settings.manyTables()) {
        continue; // measured by the sink matrix with the same number of events
      }
      Workload workload =
          Workload.load(
              loader,
              "cost" + tables,
              tables,
              1,
              settings.events(),
              Math.max(100, settings.keySpace() / tables));
      for (int run = 1; run <= settings.repetitions(); run++) {
        for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
          String caseName = kind.label + " / " + tables + " tables";
          String name = "r" + run + "-cost" + tables + "-" + kind.label;
          Path warehouse = settings.workDir().resolve("warehouse").resolve(name);
          costRun(caseName, name, run, kind, workload, warehouse, failures);
          deleteRecursively(warehouse);
        }
      }
    }
    for (int size : settings.costTableSizes()) {
      Path warehouse = settings.workDir().resolve("warehouse").resolve("size" + size);
      DebeziumEvents generator = new DebeziumEvents("size" + size, 1, size, 11);
      String preName = "size" + size + "pre";
      DebeziumEvents preEvents = new DebeziumEvents(preName, 1, size, 12);
      loader.createTopics(preEvents.topics(), 1);
      int[] next = {0};
      loader.load(size, () -> preEvents.upsert(0, next[0]++));
      Workload fill = new Workload(preName, 1, preEvents.topics(), preName + "\\.public\\..*", 0);
      // fill the table to its size; its rate is reported as the initial load
      costRun(
          "changelake / initial load of " + size + " rows",
          "fill-" + size,
          1,
          Kind.CHANGELAKE,
          fill,
          warehouse,
          failures);
      String updName = "size" + size;
      loader.createTopics(generator.topics(), 1);
      java.util.SplittableRandom random = new java.util.SplittableRandom(13);
      loader.load(settings.costEvents(), () -> generator.upsert(0, random.nextInt(size)));
      Workload updates =
          new Workload(updName, 1, generator.topics(), updName + "\\.public\\..*", 0);
      for (int run = 1; run <= settings.repetitions(); run++) {
        for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
          costRun(
              kind.label + " / " + size + " rows",
              "r" + run + "-size" + size + "-" + kind.label,
              run,
              kind,
              updates,
              warehouse,
              failures);
        }
      }
      deleteRecursively(warehouse);
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(String.join("\n", failures));
    }
  }

  private static Path sourceWarehouse;
  private static int sourceTableRows;

  private void costRun(
      String caseName,
      String name,
      int run,
      Kind kind,
      Workload workload,
      Path warehouse,
      List<String> failures) {
    Map<String, String> config =
        kind == Kind.DO_NOTHING
            ? Sinks.doNothing(workload.regex(), 1, Converter.JSON)
            : Sinks.changelake(
                workload.regex(),
                1,
                Converter.JSON,
                warehouse,
                settings.commitIntervalMs(),
                "deduplicate");
    try {
      SinkRunner.Measurement m = runner.run(name, config, workload.topics());
      results.add(COST, caseName, run, "events_per_s", m.eventsPerSecond(), "1/s");
      results.add(COST, caseName, run, "cpu_us_per_event", m.processCpuMicrosPerEvent(), "us");
    } catch (RuntimeException | AssertionError e) {
      results.failed(COST, caseName, e);
      failures.add(caseName + ": " + e.getMessage());
    }
  }

  /** Runs of the source throughput's cases before the recorded ones (see there). */
  private static final int SOURCE_WARM_UPS = 2;

  /** Records the do-nothing source holds as Connect data and hands the worker in turn. */
  private static final int DO_NOTHING_SAMPLE = 10_000;

  static final String DO_NOTHING_SOURCE = "do-nothing source";
  static final String DO_NOTHING_SOURCE_CACHING = "do-nothing source, caching converter";

  /** Records the plain producer holds in memory and sends in turn (see sourceThroughput). */
  private static final int PLAIN_SAMPLE = 100_000;

  /**
   * The Changelake source publishing a table against a plain producer sending the same records and
   * against the do-nothing source handing the worker the same records. The table is filled by the
   * Changelake sink first.
   */
  @Test
  @Order(5)
  void sourceThroughput() {
    if (!BenchSettings.enabled(SOURCE)) {
      return;
    }
    List<String> failures = new ArrayList<>();
    try {
      if (sourceWarehouse == null) {
        sourceWarehouse = settings.workDir().resolve("warehouse").resolve("source");
        sourceTableRows = settings.sourceEvents();
        DebeziumEvents rows = new DebeziumEvents("srcfill", 1, sourceTableRows, 21);
        loader.createTopics(rows.topics(), 1);
        int[] next = {0};
        loader.load(sourceTableRows, () -> rows.upsert(0, next[0]++));
        Map<String, String> fill =
            Sinks.changelake(
                "srcfill\\.public\\..*",
                1,
                Converter.JSON,
                sourceWarehouse,
                settings.commitIntervalMs(),
                "deduplicate");
        // the tables' changelog (lookup producer) is written by compaction: let one happen
        fill.put("compaction.interval.ms", "1000");
        fill.put("compaction.full", "true");
        Path warehouse = sourceWarehouse;
        runner.run("source-fill", fill, rows.topics(), () -> awaitCompaction(warehouse, "t000"));
      }
      SourceThroughput source = new SourceThroughput(platform, loader, runner);
      String table = DebeziumEvents.tableName(0);
      // the first SOURCE_WARM_UPS runs warm the JIT up for every case and are not recorded: after
      // one, the JIT compiler threads still took 4-12 us of CPU per event in the next one or two
      // runs of each case (session 11's CSV: 9.5 -> 4.0 -> 2.0 for the caching source, 5.1 ->
      // 5.0 -> 2.6 for the plain producer), on the same 2 cores as the measured threads, so the
      // first recorded runs measured compilation more than publishing. The source's JFR profile is
      // taken in a run of its own after the recorded ones: recording slows the source's threads
      // (a third in a loaded run) and the plain producer is not profiled
      int profiled = settings.repetitions() + SOURCE_WARM_UPS;
      for (int run = 0; run <= profiled; run++) {
        String prefix = "srcout-r" + run;
        source.profileInto(run == profiled ? settings.workDir() : null);
        SourceThroughput.Run json =
            source.changelakeSource(
                "source-r" + run,
                sourceWarehouse,
                "bench",
                table,
                prefix,
                sourceTableRows,
                Converter.JSON);
        SourceThroughput.Run caching =
            source.changelakeSource(
                "source-caching-r" + run,
                sourceWarehouse,
                "bench",
                table,
                "srcout-caching-r" + run,
                sourceTableRows,
                Converter.CACHING);
        if (run == profiled) {
          break;
        }
        // the very records the source published (its first PLAIN_SAMPLE, sent again in turn past
        // that: held in memory, a sample of every record of a 300,000-event run would take most
        // of the 1 GiB heap the broker and the worker share, and the collections it caused were
        // counted against the plain producer)
        int sample = (int) Math.min(sourceTableRows, PLAIN_SAMPLE);
        // the ceiling of any source on this worker: the same records, held in memory as Connect
        // data by the do-nothing source, converted and sent by the worker as the Changelake
        // source's are. Its first DO_NOTHING_SAMPLE, in turn: held as Connect data, the plain
        // producer's 100,000 caused a full collection in half of the do-nothing runs (none in the
        // Changelake source's), a cost of the baseline's memory, not of publishing
        int nothingSample = (int) Math.min(sourceTableRows, DO_NOTHING_SAMPLE);
        SourceThroughput.Run nothingJson =
            source.doNothingSource(
                "source-nothing-r" + run,
                prefix + "." + table,
                "nothing-r" + run,
                sourceTableRows,
                nothingSample,
                Converter.JSON);
        SourceThroughput.Run nothingCaching =
            source.doNothingSource(
                "source-nothing-caching-r" + run,
                prefix + "." + table,
                "nothing-caching-r" + run,
                sourceTableRows,
                nothingSample,
                Converter.CACHING);
        SourceThroughput.Run plain =
            source.plainProducer(prefix + "." + table, "plain-r" + run, sourceTableRows, sample);
        if (run >= SOURCE_WARM_UPS) {
          int recorded = run - SOURCE_WARM_UPS + 1;
          record(SOURCE, "changelake source", recorded, json);
          record(SOURCE, "changelake source, caching converter", recorded, caching);
          record(SOURCE, DO_NOTHING_SOURCE, recorded, nothingJson);
          record(SOURCE, DO_NOTHING_SOURCE_CACHING, recorded, nothingCaching);
          record(SOURCE, "plain producer", recorded, plain);
        }
      }
    } catch (RuntimeException | AssertionError e) {
      results.failed(SOURCE, "changelake source", e);
      failures.add(e.getMessage());
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(String.join("\n", failures));
    }
  }

  /**
   * Waits until the table's latest snapshot is a compaction, no snapshot followed it for a few
   * seconds and no file is left in level 0: with the lookup changelog producer, a full read
   * publishes only compacted rows.
   */
  private static void awaitCompaction(Path warehouse, String table) {
    try (LakeSnapshots lake = new LakeSnapshots(warehouse, "bench", table)) {
      long deadline = System.nanoTime() + java.time.Duration.ofMinutes(3).toNanos();
      long quietSince = System.nanoTime();
      long lastSeen = -1;
      while (true) {
        long latest = lake.latestSnapshotId();
        if (latest != lastSeen) {
          lastSeen = latest;
          quietSince = System.nanoTime();
        } else if ("COMPACT".equals(lake.latestCommitKind())
            && System.nanoTime() - quietSince > 3_000_000_000L
            // a compaction planned before the last append leaves that append's rows in level 0,
            // where a full read does not see them (seen under load: 47,314 of 50,000 published)
            && lake.level0Files() == 0) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("compaction of bench." + table + " did not settle");
        }
        SinkRunner.sleep(250);
      }
    } catch (IllegalStateException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void record(String measurement, String caseName, int run, SourceThroughput.Run r) {
    results.add(measurement, caseName, run, "events_per_s", r.events() / r.seconds(), "1/s");
    results.add(
        measurement, caseName, run, "cpu_us_per_event", r.cpuSeconds() * 1e6 / r.events(), "us");
    if (r.startupSeconds() > 0) {
      results.add(measurement, caseName, run, "startup_s", r.startupSeconds(), "s");
    }
    r.collections()
        .forEach(
            (gc, n) -> results.add(new Results.Row(measurement, caseName, run, "gc", n, "", gc)));
    // where the CPU per event goes, per thread; the rest of the JVM: the broker's and Connect's
    // threads not named on their own
    Map<String, Double> threads = new java.util.TreeMap<>(r.threadCpuSeconds());
    double counted = threads.values().stream().mapToDouble(Double::doubleValue).sum();
    threads.put("rest of the JVM (other threads)", r.cpuSeconds() - counted);
    threads.forEach(
        (thread, seconds) ->
            results.add(
                new Results.Row(
                    measurement,
                    caseName,
                    run,
                    "cpu_us_per_event_of_thread",
                    seconds * 1e6 / r.events(),
                    "us",
                    thread)));
  }

  /**
   * PostgreSQL commit to committed snapshot and to the changelog topic, at a steady rate, on one
   * table; to committed snapshots on each larger count of {@code bench.latency.tables}, the same
   * rows spread over that many tables (issue 14: also at 100 tables).
   */
  @Test
  @Order(4)
  void latency() throws Exception {
    if (!BenchSettings.enabled(LATENCY)) {
      return;
    }
    List<String> failures = new ArrayList<>();
    try (io.changelake.testkit.postgres.PostgresServer pg =
        io.changelake.testkit.postgres.PostgresServer.start()) {
      for (int tables : settings.latencyTableCounts()) {
        String snapshotCase = Report.LatencyCase.snapshot(tables);
        Path warehouse = settings.workDir().resolve("warehouse").resolve("latency" + tables);
        try {
          LatencyProbe.Outcome outcome =
              new LatencyProbe(platform, loader, runner)
                  .run(
                      pg,
                      warehouse,
                      settings.commitIntervalMs(),
                      settings.latencyWarmupSeconds(),
                      settings.latencySeconds(),
                      settings.latencyRowsPerSecond(),
                      tables);
          recordLatency(Report.LatencyCase.kafka(tables), outcome.toKafka(), 0);
          recordLatency(snapshotCase, outcome.toSnapshot(), outcome.missingSnapshot());
          if (settings.latencyWarmupSeconds() > 0) {
            recordLatency(Report.LatencyCase.warmup(tables), outcome.warmupToSnapshot(), 0);
          }
          if (tables == 1) {
            recordLatency(
                Report.LatencyCase.CHANGELOG, outcome.toChangelog(), outcome.missingChangelog());
          }
          if (outcome.missingSnapshot() > 0 || outcome.missingChangelog() > 0) {
            throw new AssertionError(
                outcome.missingSnapshot()
                    + " of "
                    + outcome.rows()
                    + " rows never reached a snapshot, "
                    + outcome.missingChangelog()
                    + " never reached the changelog topic");
          }
        } catch (RuntimeException | AssertionError e) {
          results.failed(LATENCY, snapshotCase, e);
          failures.add(snapshotCase + ": " + e.getMessage());
        } finally {
          deleteRecursively(warehouse);
        }
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(String.join("\n", failures));
    }
  }

  private static void recordLatency(String caseName, List<Long> millis, int missing) {
    Percentiles p = Percentiles.of(millis);
    if (p.count() > 0) {
      results.add(LATENCY, caseName, 1, "p50_ms", p.p50(), "ms");
      results.add(LATENCY, caseName, 1, "p99_ms", p.p99(), "ms");
      results.add(LATENCY, caseName, 1, "max_ms", p.max(), "ms");
    }
    results.add(LATENCY, caseName, 1, "rows", p.count(), "");
    results.add(LATENCY, caseName, 1, "missing_rows", missing, "");
  }

  /** A sink case of the matrix. */
  record SinkCase(Kind kind, Converter converter, int tasks, Workload workload) {
    String key() {
      return kind.label
          + " / "
          + converter.label
          + " / "
          + tasks
          + " task"
          + (tasks == 1 ? "" : "s")
          + " / "
          + workload.tables()
          + " table"
          + (workload.tables() == 1 ? "" : "s");
    }
  }

  private void measure(SinkCase c, int run, boolean profile, List<String> failures) {
    if (c.kind() == Kind.ICEBERG && !icebergInstalled) {
      return;
    }
    String name =
        ("r"
            + run
            + "-"
            + c.workload().name()
            + "-"
            + c.tasks()
            + "t-"
            + c.kind().label
            + "-"
            + c.converter().label);
    Path warehouse = settings.workDir().resolve("warehouse").resolve(name);
    Map<String, String> config =
        switch (c.kind()) {
          case DO_NOTHING -> Sinks.doNothing(c.workload().regex(), c.tasks(), c.converter());
          case CHANGELAKE, CHANGELAKE_L0_AVRO, CHANGELAKE_PARTIAL -> {
            boolean partial = c.kind() == Kind.CHANGELAKE_PARTIAL;
            Map<String, String> changelake =
                Sinks.changelake(
                    c.workload().regex(),
                    c.tasks(),
                    c.converter(),
                    warehouse,
                    settings.commitIntervalMs(),
                    partial ? "partial-update" : "deduplicate");
            if (partial) {
              // partial-update tables take deletes only when told to remove the row
              changelake.put("table.delete-policy", "remove-row");
            }
            if (c.kind() == Kind.CHANGELAKE_L0_AVRO) {
              changelake.put("table.option.file.format.per.level", "0:avro");
            }
            yield changelake;
          }
          case ICEBERG -> {
            String control = "control-" + name;
            loader.createTopics(List.of(control), 1);
            yield Sinks.iceberg(
                platform.bootstrapServers(),
                c.workload().regex(),
                c.tasks(),
                c.converter(),
                warehouse,
                control,
                c.workload().tables(),
                settings.commitIntervalMs());
          }
        };
    JfrProfile jfr = profile ? new JfrProfile(settings.workDir().resolve(name + ".jfr")) : null;
    try {
      SinkRunner.Measurement m = runner.run(name, config, c.workload().topics());
      results.add(SINK, c.key(), run, "events_per_s", m.eventsPerSecond(), "1/s");
      results.add(SINK, c.key(), run, "cpu_us_per_event", m.processCpuMicrosPerEvent(), "us");
      results.add(SINK, c.key(), run, "task_cpu_us_per_event", m.taskCpuMicrosPerEvent(), "us");
      results.add(SINK, c.key(), run, "seconds", m.seconds(), "s");
      results.add(SINK, c.key(), run, "steady_events_per_s", m.steadyEventsPerSecond(), "1/s");
      if (jfr != null) {
        jfr.stop();
        recordProfile(
            c.key(),
            jfr.summary("org.apache.kafka.connect.runtime.WorkerSinkTask", 12),
            "task thread");
        recordProfile(c.key(), jfr.summary("", 12), "whole JVM");
      }
    } catch (RuntimeException | AssertionError e) {
      results.failed(SINK, c.key(), e);
      failures.add(c.key() + ": " + e.getMessage());
    } finally {
      if (jfr != null) {
        jfr.close();
      }
      deleteRecursively(warehouse);
    }
  }

  static void recordProfile(String caseName, JfrProfile.Summary summary, String scope) {
    String profileCase = caseName + " / " + scope;
    results.add(PROFILE, profileCase, 0, "samples", summary.samples(), "");
    summary
        .phases()
        .forEach(
            (phase, n) ->
                results.add(
                    new Results.Row(
                        PROFILE,
                        profileCase,
                        0,
                        "phase",
                        100.0 * n / summary.samples(),
                        "%",
                        phase)));
    summary
        .topMethods()
        .forEach(
            (method, n) ->
                results.add(
                    new Results.Row(
                        PROFILE,
                        profileCase,
                        0,
                        "method",
                        100.0 * n / summary.samples(),
                        "%",
                        method)));
    summary
        .topPackages()
        .forEach(
            (pkg, n) ->
                results.add(
                    new Results.Row(
                        PROFILE,
                        profileCase,
                        0,
                        "package",
                        100.0 * n / summary.samples(),
                        "%",
                        pkg)));
  }

  /** Topics filled with change events once, then read by every sink. */
  record Workload(String name, int tables, List<String> topics, String regex, long bytes) {
    static Workload load(
        TopicLoader loader, String name, int tables, int partitions, int events, int keySpace) {
      try {
        return load(loader, new DebeziumEvents(name, tables, keySpace, 42), partitions, events);
      } catch (IllegalStateException e) {
        // the in-process broker now and then leaves a batch unanswered until it expires (seen on
        // fresh topics of 100 tables, sessions 14 and 15); the same events on fresh topics of
        // another name measure the same, where resending into the half-written ones would not
        String again = name + "b";
        System.out.printf(
            "[bench] loading %s failed (%s); loading the same events as %s%n",
            name, e.getMessage(), again);
        return load(loader, new DebeziumEvents(again, tables, keySpace, 42), partitions, events);
      }
    }

    static Workload load(TopicLoader loader, DebeziumEvents generator, int partitions, int events) {
      String name = generator.server();
      int tables = generator.topics().size();
      loader.createTopics(generator.topics(), partitions);
      long bytes = loader.load(events, generator::next);
      return new Workload(
          name, tables, generator.topics(), name.replace(".", "\\.") + "\\.public\\..*", bytes);
    }
  }

  /**
   * The caching converter from the built plugin archive (the Changelake connectors are not on this
   * module's classpath); Kafka and Jackson classes come from the test classpath, as on a worker.
   */
  static org.apache.kafka.connect.storage.Converter cachingConverter() {
    try (Stream<Path> jars = Files.list(PluginWorkers.pluginFolder().resolve("lib"))) {
      Path sinkJar =
          jars.filter(p -> p.getFileName().toString().startsWith("connect-sink-"))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no connect-sink jar in the plugin"));
      var loader =
          new java.net.URLClassLoader(
              new java.net.URL[] {sinkJar.toUri().toURL()},
              ChangelakeBenchmark.class.getClassLoader());
      return (org.apache.kafka.connect.storage.Converter)
          loader.loadClass(Converter.CACHING.className).getDeclaredConstructor().newInstance();
    } catch (IOException | ReflectiveOperationException e) {
      throw new IllegalStateException("cannot load " + Converter.CACHING.className, e);
    }
  }

  /**
   * A task's key and value converters: Connect configures one instance of each per task (the key's
   * with {@code isKey}), so a converter never sees a topic's keys and values interleaved.
   */
  record KeyAndValue(
      org.apache.kafka.connect.storage.Converter key,
      org.apache.kafka.connect.storage.Converter value) {
    static KeyAndValue of(Converter converter) {
      return new KeyAndValue(configured(converter, true), configured(converter, false));
    }

    private static org.apache.kafka.connect.storage.Converter configured(
        Converter converter, boolean isKey) {
      org.apache.kafka.connect.storage.Converter instance =
          converter == Converter.JSON ? new JsonConverter() : cachingConverter();
      instance.configure(Map.of("schemas.enable", "true"), isKey);
      return instance;
    }
  }

  static BenchSettings settings() {
    return settings;
  }

  /**
   * Frees the disk a run used. Best effort: a connector's background threads (Iceberg's
   * coordinator) may still be closing files, and a leftover folder only costs disk space.
   */
  static void deleteRecursively(Path dir) {
    for (int attempt = 0; attempt < 5 && Files.exists(dir); attempt++) {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException | UncheckedIOException e) {
        SinkRunner.sleep(500);
      }
    }
  }

  private static void copyDirectory(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
  }
}
