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

  /** Latencies in milliseconds, per row, and how many rows never arrived. */
  record Outcome(
      List<Long> toSnapshot,
      List<Long> toChangelog,
      int rows,
      int missingSnapshot,
      int missingChangelog) {}

  private static final String DATABASE = "benchlat";
  private static final String TABLE = "lat";

  private final ConnectPlatform platform;
  private final TopicLoader loader;
  private final SinkRunner runner;
  private final ObjectMapper json = new ObjectMapper();

  LatencyProbe(ConnectPlatform platform, TopicLoader loader, SinkRunner runner) {
    this.platform = platform;
    this.loader = loader;
    this.runner = runner;
  }

  Outcome run(PostgresServer pg, Path warehouse, long commitIntervalMs, int seconds, int rate)
      throws Exception {
    pg.createDatabase(DATABASE);
    pg.execute(
        DATABASE,
        "CREATE TABLE public." + TABLE + " (id bigint PRIMARY KEY, v int NOT NULL, note text)",
        "ALTER TABLE public." + TABLE + " REPLICA IDENTITY FULL");
    String changelogTopic = "latcl." + TABLE;
    loader.createTopics(List.of(changelogTopic), 1);
    Map<String, String> debezium = DebeziumPostgres.config(pg, DATABASE, "lat", "public." + TABLE);
    Map<String, String> sink =
        Sinks.changelake(
            "lat\\.public\\..*",
            1,
            Sinks.Converter.JSON,
            warehouse,
            commitIntervalMs,
            "deduplicate");
    // the changelog (lookup producer) is written by compaction: compact at the commit interval
    sink.put("compaction.interval.ms", String.valueOf(commitIntervalMs));
    Map<String, String> source = new HashMap<>();
    source.put("connector.class", "io.changelake.source.ChangelakeSourceConnector");
    source.put("tasks.max", "1");
    source.put("paimon.warehouse", warehouse.toUri().toString());
    source.put("tables", "bench." + TABLE);
    source.put("start.position", "full");
    source.put("poll.interval.ms", "100");
    source.put("tables.discovery.interval.ms", "1000");
    source.put("topic.name.format", "latcl.${table}");
    Map<Long, Long> committed = new ConcurrentHashMap<>();
    Map<Long, Long> inSnapshot = new ConcurrentHashMap<>();
    Map<Long, Long> onTopic = new ConcurrentHashMap<>();
    AtomicBoolean watching = new AtomicBoolean(true);
    List<Thread> watchers = new ArrayList<>();
    try {
      platform.deploy("lat-debezium", debezium, 1);
      platform.deploy("lat-sink", sink, 1);
      // no task yet: the table appears with the first row the sink writes
      platform.cluster().configureConnector("lat-source", source);
      watchers.add(
          daemon("bench-snapshot-watch", () -> watchSnapshots(warehouse, inSnapshot, watching)));
      watchers.add(
          daemon("bench-changelog-watch", () -> watchChangelog(changelogTopic, onTopic, watching)));
      awaitPipelineReady(pg, inSnapshot);
      insertAtRate(pg, seconds, rate, committed);
      long deadline =
          System.nanoTime() + Duration.ofMillis(3 * commitIntervalMs + 30_000).toNanos();
      while ((inSnapshot.size() < committed.size() || onTopic.size() < committed.size())
          && System.nanoTime() < deadline) {
        SinkRunner.sleep(200);
      }
    } finally {
      watching.set(false);
      for (Thread t : watchers) {
        t.join(10_000);
      }
      for (String name : List.of("lat-source", "lat-sink", "lat-debezium")) {
        runner.remove(name, "task-thread-" + name + "-");
      }
      pg.dropReplicationSlots(DATABASE);
    }
    List<Long> toSnapshot = new ArrayList<>();
    List<Long> toChangelog = new ArrayList<>();
    int missingSnapshot = 0;
    int missingChangelog = 0;
    for (Map.Entry<Long, Long> e : committed.entrySet()) {
      Long s = inSnapshot.get(e.getKey());
      Long c = onTopic.get(e.getKey());
      if (s == null) {
        missingSnapshot++;
      } else {
        toSnapshot.add(Math.max(0, s - e.getValue()));
      }
      if (c == null) {
        missingChangelog++;
      } else {
        toChangelog.add(Math.max(0, c - e.getValue()));
      }
    }
    return new Outcome(
        toSnapshot, toChangelog, committed.size(), missingSnapshot, missingChangelog);
  }

  /**
   * Inserts row 0 and waits until it is in a committed snapshot: Debezium's start (slot,
   * publication, initial snapshot) and the table's creation are not part of the steady state.
   */
  private void awaitPipelineReady(PostgresServer pg, Map<Long, Long> inSnapshot) {
    pg.execute(DATABASE, "INSERT INTO public." + TABLE + " (id, v, note) VALUES (0, 1, 'ready')");
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (!inSnapshot.containsKey(0L)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the first row never reached the lake table\n"
                + platform.describe("lat-debezium")
                + platform.describe("lat-sink"));
      }
      SinkRunner.sleep(200);
    }
  }

  /** One row per 1/rate seconds, each its own transaction; records when each commit returned. */
  private void insertAtRate(PostgresServer pg, int seconds, int rate, Map<Long, Long> committed)
      throws SQLException {
    try (Connection c = pg.connect(DATABASE);
        PreparedStatement insert =
            c.prepareStatement("INSERT INTO public." + TABLE + " (id, v, note) VALUES (?, 1, ?)")) {
      c.setAutoCommit(true);
      long start = System.nanoTime();
      long periodNanos = 1_000_000_000L / rate;
      for (long id = 1; id <= (long) seconds * rate; id++) {
        long due = start + (id - 1) * periodNanos;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          SinkRunner.sleep(wait / 1_000_000);
        }
        insert.setLong(1, id);
        insert.setString(2, "row " + id);
        insert.executeUpdate();
        committed.put(id, System.currentTimeMillis());
      }
    }
  }

  /** Notes, for every id, the commit time of the first snapshot that holds it. */
  private void watchSnapshots(Path warehouse, Map<Long, Long> seen, AtomicBoolean watching) {
    try (LakeSnapshots lake = new LakeSnapshots(warehouse, "bench", TABLE)) {
      long last = 0;
      while (watching.get()) {
        long latest = lake.latestSnapshotId();
        for (long id = last + 1; id <= latest; id++) {
          LakeSnapshots.SnapshotRows snapshot = lake.read(id);
          for (Map<String, Object> row : snapshot.rows()) {
            Object key = row.get("id");
            if (key instanceof Number n) {
              seen.putIfAbsent(n.longValue(), snapshot.committedAtMillis());
            }
          }
        }
        last = Math.max(last, latest);
        SinkRunner.sleep(100);
      }
    } catch (Exception e) {
      throw new IllegalStateException("watching the lake table failed", e);
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
