package io.changelake.e2e.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * End-to-end latency at a steady rate: rows inserted into PostgreSQL, captured by Debezium, written
 * by the Changelake sink, published by the Changelake source. For every row it takes the time its
 * PostgreSQL commit returned, the commit time of the first table snapshot holding it, and the time
 * its event arrived on the changelog topic.
 */
final class LatencyProbe {

  /**
   * Latencies in milliseconds, per row, and how many rows never arrived; {@code warmupToSnapshot}
   * holds those of the warm-up's rows that arrived (not measured).
   */
  record Outcome(
      List<Long> toKafka,
      List<Long> toSnapshot,
      List<Long> toChangelog,
      List<Long> warmupToSnapshot,
      int rows,
      int missingSnapshot,
      int missingChangelog) {}

  private final ConnectPlatform platform;
  private final TopicLoader loader;
  private final SinkRunner runner;
  private final ObjectMapper json = new ObjectMapper();

  LatencyProbe(ConnectPlatform platform, TopicLoader loader, SinkRunner runner) {
    this.platform = platform;
    this.loader = loader;
    this.runner = runner;
  }

  /**
   * The PostgreSQL tables of a probe: one ({@code lat}, database {@code benchlat}, the case the
   * changelog is measured on too) or {@code n} ({@code lat_000}..., database {@code benchlatN}),
   * each its own Debezium topic and lake table; rows go to them in turn.
   */
  private record Tables(String database, String prefix, List<String> names) {
    static Tables of(int n) {
      if (n == 1) {
        return new Tables("benchlat", "lat", List.of("lat"));
      }
      List<String> names = new ArrayList<>();
      for (int t = 0; t < n; t++) {
        names.add(String.format(java.util.Locale.ROOT, "lat_%03d", t));
      }
      return new Tables("benchlat" + n, "lat" + n, names);
    }

    String name(long id) {
      return names.get((int) (id % names.size()));
    }

    String connector(String role) {
      return prefix + "-" + role;
    }
  }

  /**
   * Runs the probe on {@code tableCount} tables; the changelog topic is watched only with one table
   * (the source publishing a hundred tables is not what this measures). Rows go in at the steady
   * rate for {@code warmupSeconds} first, not measured.
   */
  Outcome run(
      PostgresServer pg,
      Path warehouse,
      long commitIntervalMs,
      int warmupSeconds,
      int seconds,
      int rate,
      int tableCount)
      throws Exception {
    Tables tables = Tables.of(tableCount);
    boolean changelog = tableCount == 1;
    pg.createDatabase(tables.database());
    List<String> ddl = new ArrayList<>();
    for (String t : tables.names()) {
      ddl.add("CREATE TABLE public." + t + " (id bigint PRIMARY KEY, v int NOT NULL, note text)");
      ddl.add("ALTER TABLE public." + t + " REPLICA IDENTITY FULL");
    }
    pg.execute(tables.database(), ddl.toArray(String[]::new));
    String changelogTopic = "latcl." + tables.names().get(0);
    Map<String, String> debezium =
        DebeziumPostgres.config(
            pg,
            tables.database(),
            tables.prefix(),
            tableCount == 1 ? "public." + tables.names().get(0) : "public\\.lat_.*");
    // Debezium's poll.interval.ms (default 500) is slept twice on a row's way to Kafka: by the
    // replication stream's loop whenever no message is pending, and by the batch it hands to
    // Connect, which waits the whole interval unless max.batch.size fills. At this rate that was
    // p50 ~700 ms, p99 ~1.2 s of the probe's 3 s budget before the sink saw a row; a user who
    // commits every second for latency lowers it as the probe's source does its own poll interval
    // (-Dbench.latency.debezium.poll.ms=500 measures Debezium's default). Of what is left (p50
    // ~270 ms, p99 ~550 ms) about half is the test server's asynchronous commits: a logical
    // walsender decodes only flushed WAL, which the WAL writer flushes every 200 ms; timed with
    // synchronous commits the capture was p50 100 ms, p99 ~330 ms, but 100 WAL fsyncs a second
    // on the disk the sink and the broker write to made the whole path slower (issue 14, s15)
    debezium.put("poll.interval.ms", debeziumPollMs());
    Map<String, String> sink =
        Sinks.changelake(
            tables.prefix() + "\\.public\\..*",
            1,
            Sinks.Converter.JSON,
            warehouse,
            commitIntervalMs,
            "deduplicate");
    Map<String, String> source = new HashMap<>();
    if (changelog) {
      loader.createTopics(List.of(changelogTopic), 1);
      // the changelog (lookup producer) is written by compaction: compact at the commit interval
      sink.put("compaction.interval.ms", String.valueOf(commitIntervalMs));
      source.put("connector.class", "io.changelake.source.ChangelakeSourceConnector");
      source.put("tasks.max", "1");
      source.put("paimon.warehouse", warehouse.toUri().toString());
      source.put("tables", "bench." + tables.names().get(0));
      source.put("start.position", "full");
      source.put("poll.interval.ms", "100");
      source.put("tables.discovery.interval.ms", "1000");
      source.put("topic.name.format", "latcl.${table}");
    }
    Map<Long, Long> warmup = new ConcurrentHashMap<>();
    Map<Long, Long> committed = new ConcurrentHashMap<>();
    Map<Long, Long> onKafka = new ConcurrentHashMap<>();
    Map<Long, Long> kafkaOffsets = new ConcurrentHashMap<>();
    Map<Long, Long> watched = new ConcurrentHashMap<>();
    Map<Long, Long> inSnapshot = new ConcurrentHashMap<>();
    Map<Long, Long> onTopic = new ConcurrentHashMap<>();
    AtomicBoolean watching = new AtomicBoolean(true);
    List<Thread> watchers = new ArrayList<>();
    try {
      platform.deploy(tables.connector("debezium"), debezium, 1);
      platform.deploy(tables.connector("sink"), sink, 1);
      if (changelog) {
        // no task yet: the table appears with the first row the sink writes
        platform.cluster().configureConnector(tables.connector("source"), source);
        watchers.add(
            daemon(
                "bench-changelog-watch", () -> watchChangelog(changelogTopic, onTopic, watching)));
      }
      // splits the path in two: Debezium's capture, and the sink's part from the record on
      watchers.add(
          daemon(
              "bench-debezium-watch",
              () ->
                  watchDebeziumTopics(
                      tables.prefix() + "\\.public\\..*",
                      onKafka,
                      kafkaOffsets,
                      watched,
                      watching)));
      watchers.add(
          daemon(
              "bench-snapshot-watch",
              () -> watchSnapshots(warehouse, tables.names(), inSnapshot, watching)));
      awaitPipelineReady(pg, tables, inSnapshot);
      insertAtRate(pg, tables, 1, warmupSeconds * rate, rate, warmup);
      insertAtRate(pg, tables, warmupSeconds * rate + 1, seconds * rate, rate, committed);
      long deadline =
          System.nanoTime() + Duration.ofMillis(3 * commitIntervalMs + 30_000).toNanos();
      while ((!allArrived(committed, inSnapshot) || (changelog && !allArrived(committed, onTopic)))
          && System.nanoTime() < deadline) {
        SinkRunner.sleep(200);
      }
    } finally {
      watching.set(false);
      for (Thread t : watchers) {
        t.join(10_000);
      }
      for (String role : List.of("source", "sink", "debezium")) {
        String name = tables.connector(role);
        runner.remove(name, "task-thread-" + name + "-");
      }
      pg.dropReplicationSlots(tables.database());
    }
    Map<Long, Long> everyRow = new HashMap<>(warmup);
    everyRow.putAll(committed);
    dumpRows(tables, everyRow, onKafka, kafkaOffsets, watched, inSnapshot);
    List<Long> toKafka = new ArrayList<>();
    List<Long> toSnapshot = new ArrayList<>();
    List<Long> toChangelog = new ArrayList<>();
    int missingSnapshot = 0;
    int missingChangelog = 0;
    for (Map.Entry<Long, Long> e : committed.entrySet()) {
      Long s = inSnapshot.get(e.getKey());
      Long c = onTopic.get(e.getKey());
      Long k = onKafka.get(e.getKey());
      if (k != null) {
        toKafka.add(Math.max(0, k - e.getValue()));
      }
      if (s == null) {
        missingSnapshot++;
      } else {
        toSnapshot.add(Math.max(0, s - e.getValue()));
      }
      if (c == null) {
        missingChangelog += changelog ? 1 : 0;
      } else {
        toChangelog.add(Math.max(0, c - e.getValue()));
      }
    }
    List<Long> warmupToSnapshot = new ArrayList<>();
    warmup.forEach(
        (id, at) -> {
          Long s = inSnapshot.get(id);
          if (s != null) {
            warmupToSnapshot.add(Math.max(0, s - at));
          }
        });
    return new Outcome(
        toKafka,
        toSnapshot,
        toChangelog,
        warmupToSnapshot,
        committed.size(),
        missingSnapshot,
        missingChangelog);
  }

  /** Debezium's poll.interval.ms in the probe, ms: 100 unless -Dbench.latency.debezium.poll.ms. */
  static String debeziumPollMs() {
    return System.getProperty("bench.latency.debezium.poll.ms", "100");
  }

  /**
   * With {@code -Dbench.latency.rows=<file>}, writes every row's times (epoch ms: its PostgreSQL
   * commit, its Debezium record's timestamp and offset, when a consumer of the probe's own read
   * that record, the snapshot holding it) as CSV, to split a tail by where it waited (joined with
   * the sink's DEBUG lines of its puts and rounds). The record's timestamp is its producer's create
   * time: a record the producer sent or the broker appended late is told apart by when it was read.
   */
  private static void dumpRows(
      Tables tables,
      Map<Long, Long> committed,
      Map<Long, Long> onKafka,
      Map<Long, Long> kafkaOffsets,
      Map<Long, Long> watched,
      Map<Long, Long> inSnapshot)
      throws java.io.IOException {
    String file = System.getProperty("bench.latency.rows");
    if (file == null || file.isBlank()) {
      return;
    }
    List<String> lines = new ArrayList<>();
    lines.add("id,table,committed_ms,kafka_ms,kafka_offset,read_ms,snapshot_ms");
    committed.keySet().stream()
        .sorted()
        .forEach(
            id ->
                lines.add(
                    id
                        + ","
                        + tables.name(id)
                        + ","
                        + committed.get(id)
                        + ","
                        + onKafka.getOrDefault(id, -1L)
                        + ","
                        + kafkaOffsets.getOrDefault(id, -1L)
                        + ","
                        + watched.getOrDefault(id, -1L)
                        + ","
                        + inSnapshot.getOrDefault(id, -1L)));
    java.nio.file.Files.write(Path.of(file), lines);
  }

  /**
   * Inserts row 0 into every table and waits until all are in committed snapshots: Debezium's start
   * (slot, publication, initial snapshot) and the tables' creation are not part of the steady
   * state. Row ids of the warm-up are negative, so they are not measured.
   */
  private void awaitPipelineReady(PostgresServer pg, Tables tables, Map<Long, Long> inSnapshot) {
    List<String> inserts = new ArrayList<>();
    for (int t = 0; t < tables.names().size(); t++) {
      inserts.add(
          "INSERT INTO public."
              + tables.names().get(t)
              + " (id, v, note) VALUES ("
              + (-t - 1)
              + ", 1, 'ready')");
    }
    pg.execute(tables.database(), inserts.toArray(String[]::new));
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (!allReady(inSnapshot, tables.names().size())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the first rows never reached the lake tables\n"
                + platform.describe(tables.connector("debezium"))
                + platform.describe(tables.connector("sink")));
      }
      SinkRunner.sleep(200);
    }
    for (int t = 0; t < tables.names().size(); t++) {
      inSnapshot.remove((long) -t - 1);
    }
  }

  /** True when every committed row was seen (warm-up rows, also seen, do not count). */
  private static boolean allArrived(Map<Long, Long> committed, Map<Long, Long> seen) {
    return committed.keySet().stream().allMatch(seen::containsKey);
  }

  private static boolean allReady(Map<Long, Long> inSnapshot, int tables) {
    for (int t = 0; t < tables; t++) {
      if (!inSnapshot.containsKey((long) -t - 1)) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code count} rows from id {@code firstId}, one per 1/rate seconds, each its own transaction,
   * to the tables in turn; records when each commit returned.
   */
  private void insertAtRate(
      PostgresServer pg,
      Tables tables,
      long firstId,
      int count,
      int rate,
      Map<Long, Long> committed)
      throws SQLException {
    try (Connection c = pg.connect(tables.database())) {
      c.setAutoCommit(true);
      Map<String, PreparedStatement> inserts = new HashMap<>();
      try {
        for (String t : tables.names()) {
          inserts.put(
              t, c.prepareStatement("INSERT INTO public." + t + " (id, v, note) VALUES (?, 1, ?)"));
        }
        long start = System.nanoTime();
        long periodNanos = 1_000_000_000L / rate;
        for (long id = firstId; id < firstId + count; id++) {
          long due = start + (id - firstId) * periodNanos;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            SinkRunner.sleep(wait / 1_000_000);
          }
          PreparedStatement insert = inserts.get(tables.name(id));
          insert.setLong(1, id);
          insert.setString(2, "row " + id);
          insert.executeUpdate();
          committed.put(id, System.currentTimeMillis());
        }
      } finally {
        for (PreparedStatement p : inserts.values()) {
          p.close();
        }
      }
    }
  }

  /**
   * Notes, for every id, the commit time of the first snapshot of its table that holds it. The
   * figure is the snapshot's own commit time, so how often the tables are looked at does not change
   * it; with many tables they are looked at less often, to leave the cores to the pipeline. Each
   * snapshot is read for the rows it added only: read whole, the snapshots of 100 tables committing
   * every round or two outran the watcher, and rows committed seconds after their insert counted as
   * never committed (issue 14).
   */
  private void watchSnapshots(
      Path warehouse, List<String> tables, Map<Long, Long> seen, AtomicBoolean watching) {
    List<LakeSnapshots> lakes = new ArrayList<>();
    try {
      for (String t : tables) {
        lakes.add(new LakeSnapshots(warehouse, "bench", t));
      }
      long[] last = new long[tables.size()];
      while (watching.get()) {
        for (int t = 0; t < lakes.size(); t++) {
          LakeSnapshots lake = lakes.get(t);
          long latest = lake.latestSnapshotId();
          for (long id = last[t] + 1; id <= latest; id++) {
            LakeSnapshots.SnapshotRows snapshot = lake.added(id);
            for (Map<String, Object> row : snapshot.rows()) {
              Object key = row.get("id");
              if (key instanceof Number n) {
                seen.putIfAbsent(n.longValue(), snapshot.committedAtMillis());
              }
            }
          }
          last[t] = Math.max(last[t], latest);
        }
        SinkRunner.sleep(tables.size() == 1 ? 100 : 1000);
      }
    } catch (Exception e) {
      throw new IllegalStateException("watching the lake tables failed", e);
    } finally {
      for (LakeSnapshots lake : lakes) {
        try {
          lake.close();
        } catch (Exception e) {
          // a watcher's catalog: nothing to keep
        }
      }
    }
  }

  /** Notes, for every id, when its event arrived on the changelog topic. */
  private void watchChangelog(String topic, Map<Long, Long> seen, AtomicBoolean watching) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      while (watching.get()) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
          long now = System.currentTimeMillis();
          Long id = idOf(r.value());
          if (id != null) {
            seen.putIfAbsent(id, now);
          }
        }
      }
    }
  }

  /**
   * Notes, for every id, the timestamp of its Debezium record (the producer's create time, when
   * Debezium handed it to Kafka), so that how often this consumer polls does not count.
   */
  private void watchDebeziumTopics(
      String regex,
      Map<Long, Long> seen,
      Map<Long, Long> offsets,
      Map<Long, Long> read,
      AtomicBoolean watching) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-debezium-watch-" + System.nanoTime());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "1000");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(java.util.regex.Pattern.compile(regex));
      while (watching.get()) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
          Long id = idOf(r.value());
          if (id != null) {
            seen.putIfAbsent(id, r.timestamp());
            offsets.putIfAbsent(id, r.offset());
            read.putIfAbsent(id, System.currentTimeMillis());
          }
        }
      }
    }
  }

  /** The row id in a changelog event (JSON with schema; envelope or flat row). */
  private Long idOf(byte[] value) {
    if (value == null) {
      return null;
    }
    try {
      JsonNode payload = json.readTree(value).path("payload");
      JsonNode row = payload.has("after") ? payload.path("after") : payload;
      JsonNode id = row.path("id");
      return id.isNumber() ? id.longValue() : null;
    } catch (java.io.IOException e) {
      return null;
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
