package io.changelake.e2e.bench;

import io.changelake.e2e.bench.Sinks.Converter;
import io.changelake.e2e.bench.Sinks.Kind;
import io.changelake.e2e.connect.ConnectPlatform;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The benchmark run behind docs/benchmarks.md: every sink on the same worker and the same topics,
 * every figure the median of several repetitions, interleaved so drifting machine load hits all
 * sinks alike. Run it with {@code mvn -B -pl e2e-tests verify -Pbench}; sizes can be changed with
 * the system properties read by {@link BenchSettings}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChangelakeBenchmark {

  static final String SINK = "sink-throughput";
  static final String CONVERTER = "converter";
  static final String PROFILE = "profile";

  private static BenchSettings settings;
  private static Results results;
  private static ConnectPlatform platform;
  private static TopicLoader loader;
  private static SinkRunner runner;
  private static boolean icebergInstalled;

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
    worker.put("plugin.path", ConnectPlatform.pluginPath() + "," + plugins);
    Properties broker = new Properties();
    broker.put("transaction.state.log.replication.factor", "1");
    broker.put("transaction.state.log.min.isr", "1");
    broker.put("offsets.topic.replication.factor", "1");
    broker.put("log.retention.bytes", "-1");
    platform = ConnectPlatform.start("bench", 1, worker, broker);
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
    } finally {
      if (results != null) {
        new Report(settings, results).write();
      }
    }
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
      // warm-up, and a check that both converters agree on every event
      JsonConverter json = jsonConverter(new JsonConverter());
      var caching = jsonConverter(cachingConverter());
      for (DebeziumEvents.Event e : sample) {
        SchemaAndValue a = json.toConnectData(e.topic(), e.value());
        SchemaAndValue b = caching.toConnectData(e.topic(), e.value());
        if (!a.equals(b)) {
          throw new AssertionError("converters disagree on an event of " + e.topic());
        }
      }
      for (int run = 1; run <= settings.repetitions(); run++) {
        for (Converter converter : Converter.values()) {
          org.apache.kafka.connect.storage.Converter instance =
              converter == Converter.JSON
                  ? jsonConverter(new JsonConverter())
                  : jsonConverter(cachingConverter());
          ThreadMXBean threads = ManagementFactory.getThreadMXBean();
          int passes = 5;
          long cpu0 = threads.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          long nonNull = 0;
          for (int pass = 0; pass < passes; pass++) {
            for (DebeziumEvents.Event e : sample) {
              nonNull += instance.toConnectData(e.topic(), e.key()).value() == null ? 0 : 1;
              nonNull += instance.toConnectData(e.topic(), e.value()).value() == null ? 0 : 1;
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
    warmUp();
    List<String> failures = new ArrayList<>();
    for (int run = 1; run <= settings.repetitions(); run++) {
      boolean profile = run == settings.repetitions();
      for (Workload workload : List.of(one, many)) {
        for (int tasks : new int[] {1, 2}) {
          for (Kind kind : Kind.values()) {
            SinkCase c = new SinkCase(kind, Converter.JSON, tasks, workload);
            measure(c, run, profile && tasks == 1 && workload == one, failures);
          }
          if (workload == one && tasks == 1) {
            for (Kind kind : List.of(Kind.DO_NOTHING, Kind.CHANGELAKE)) {
              measure(new SinkCase(kind, Converter.CACHING, tasks, workload), run, false, failures);
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
   * One unmeasured do-nothing run on a small topic: the first connector of a worker pays for the
   * consumer offsets topic, class loading and JIT compilation.
   */
  private static void warmUp() {
    Workload warm = Workload.load(loader, "warmup", 1, 2, 5_000, 1_000);
    for (Converter converter : Converter.values()) {
      runner.run(
          "warmup-" + converter.label, Sinks.doNothing(warm.regex(), 1, converter), warm.topics());
    }
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
          case CHANGELAKE ->
              Sinks.changelake(
                  c.workload().regex(),
                  c.tasks(),
                  c.converter(),
                  warehouse,
                  settings.commitIntervalMs(),
                  "deduplicate");
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
      if (jfr != null) {
        jfr.stop();
        recordProfile(c.key(), jfr.summary("task-thread-" + name, 12), "task thread");
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

  private static void recordProfile(String caseName, JfrProfile.Summary summary, String scope) {
    String profileCase = caseName + " / " + scope;
    results.add(PROFILE, profileCase, 0, "samples", summary.samples(), "");
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
      DebeziumEvents generator = new DebeziumEvents(name, tables, keySpace, 42);
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
    try (Stream<Path> jars =
        Files.list(ConnectPlatform.pluginPath().resolve("changelake-connect/lib"))) {
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

  static <T extends org.apache.kafka.connect.storage.Converter> T jsonConverter(T converter) {
    converter.configure(Map.of("schemas.enable", "true"), false);
    return converter;
  }

  static BenchSettings settings() {
    return settings;
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
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
