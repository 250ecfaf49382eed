package io.changelake.source.it;

import static io.changelake.source.it.LakeFixture.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.changelake.source.it.ConnectFixture.Event;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-618 exactly-once: with the worker's exactly-once source support and {@code
 * transaction.boundary=connector}, a worker stopped in the middle of publishing and started again
 * leaves every change exactly once in the topic for {@code read_committed} consumers.
 */
class ExactlyOnceSourceTest {
  private static final int KEYS = 20;
  private static final int KEYS_PER_ROUND = 5;

  @TempDir static Path dir;
  private static LakeFixture lake;
  private static ConnectFixture kafka;

  @BeforeAll
  static void start() {
    lake = new LakeFixture(dir.resolve("warehouse"));
    kafka = new ConnectFixture(true);
  }

  @AfterAll
  static void stop() throws Exception {
    kafka.close();
    lake.close();
  }

  /** Round r sets qty = r on five keys, so every change is identified by (id, qty). */
  private static void writeRound(Identifier table, int round) throws Exception {
    List<InternalRow> rows = new ArrayList<>();
    for (int j = 0; j < KEYS_PER_ROUND; j++) {
      int id = (round * 3 + j) % KEYS;
      rows.add(upsert(id, "k" + id, round));
    }
    lake.commit(table, rows.toArray(InternalRow[]::new));
  }

  @Test
  void aWorkerRestartMidStreamNeitherLosesNorDuplicatesEvents() throws Exception {
    Identifier table = lake.createTable("eos_db", "t", 2, "lookup");
    List<InternalRow> initial = new ArrayList<>();
    for (int id = 0; id < KEYS; id++) {
      initial.add(upsert(id, "k" + id, 0));
    }
    lake.commit(table, initial.toArray(InternalRow[]::new));
    for (int round = 1; round <= 40; round++) {
      writeRound(table, round);
    }

    kafka.startConnector(
        "eos",
        ConnectFixture.sourceConfig(
            lake.catalogProps(),
            "tables",
            "eos_db.t",
            // from the first snapshot: the 40 rounds written so far are a backlog to publish
            "start.position",
            "snapshot",
            "start.snapshot.id",
            "1",
            "exactly.once.support",
            "required",
            "transaction.boundary",
            "connector",
            // snapshots span several polls, so transactions span several batches
            "batch.size",
            "3",
            "poll.interval.ms",
            "50"));
    kafka.awaitEvents("eos_db.t", 60);

    // stop the only worker while the backlog is being published, then start a new one
    kafka.connect.removeWorker();
    for (int round = 41; round <= 60; round++) {
      writeRound(table, round);
    }
    kafka.connect.addWorker();
    kafka.awaitRunning("eos", 1);

    int expected = KEYS + 60 * KEYS_PER_ROUND;
    List<Event> committed = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              committed.clear();
              committed.addAll(kafka.readAll("eos_db.t", "read_committed"));
              return committed.size() >= expected;
            });

    assertThat(committed).hasSize(expected);
    List<String> changes =
        committed.stream().map(e -> e.id() + "@" + e.after().getInt32("qty")).toList();
    assertThat(changes).doesNotHaveDuplicates();
    List<String> written = new ArrayList<>();
    for (int id = 0; id < KEYS; id++) {
      written.add(id + "@0");
    }
    for (int round = 1; round <= 60; round++) {
      for (int j = 0; j < KEYS_PER_ROUND; j++) {
        written.add((round * 3 + j) % KEYS + "@" + round);
      }
    }
    assertThat(changes).containsExactlyInAnyOrderElementsOf(written);

    // every snapshot was published whole: each update snapshot holds one round's five keys
    Map<Long, Long> perSnapshot =
        committed.stream()
            .filter(e -> e.op().equals("u"))
            .collect(
                Collectors.groupingBy(
                    e -> e.value().getStruct("source").getInt64("snapshot_id"),
                    Collectors.counting()));
    assertThat(perSnapshot.values()).containsOnly((long) KEYS_PER_ROUND);
    assertThat(ChangeReplay.replay(committed, List.of("id", "name", "qty")))
        .isEqualTo(lake.rows(table));
    assertThat(committed.stream().collect(Collectors.groupingBy(Event::op, Collectors.counting())))
        .containsEntry("c", (long) KEYS)
        .containsEntry("u", (long) 60 * KEYS_PER_ROUND);
  }

  /**
   * A full state far larger than one transaction may last: with the producer's transaction timeout
   * at 8 s and the producer throttled by a broker quota, publishing 10,000 rows takes about 16 s.
   * One transaction per snapshot would be aborted by the broker every time; split into transactions
   * of transaction.max.duration.ms, read_committed consumers get every row once.
   */
  @Test
  void aSnapshotLargerThanOneTransactionIsPublishedExactlyOnceInSeveralTransactions()
      throws Exception {
    int rows = 10_000;
    Identifier table = lake.createTable("eos_big", "t", 2, "input");
    List<InternalRow> all = new ArrayList<>();
    for (int id = 0; id < rows; id++) {
      all.add(upsert(id, "row " + id, id));
    }
    lake.commit(table, all.toArray(InternalRow[]::new));
    // a topic created on the first send has no leader for a moment: that stall alone would
    // outlast the short transaction timeout
    kafka.connect.kafka().createTopic("eos_big.t", 3);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kafka.connect.kafka().describeTopics("eos_big.t").get("eos_big.t").stream()
                        .flatMap(description -> description.partitions().stream())
                        .filter(partition -> partition.leader() != null)
                        .count()
                    == 3);
    // the broker throttles the task's producer to 1 MB/s: the ~16 MB of the full state (JSON
    // with schemas) take about 16 s to publish whatever the machine, longer than the transaction
    // timeout
    try (Admin admin = kafka.connect.kafka().createAdminClient()) {
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      new ClientQuotaEntity(
                          Map.of(ClientQuotaEntity.CLIENT_ID, "connector-producer-eos-big-0")),
                      List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1_000_000.0)))))
          .all()
          .get();
    }

    kafka.startConnector(
        "eos-big",
        ConnectFixture.sourceConfig(
            lake.catalogProps(),
            "tables",
            "eos_big.t",
            "start.position",
            "full",
            "exactly.once.support",
            "required",
            "transaction.boundary",
            "connector",
            "batch.size",
            "200",
            "transaction.max.duration.ms",
            "1000",
            "producer.override.transaction.timeout.ms",
            "8000",
            // a small buffer: sends block at the throttled rate, so the task's polls follow the
            // producer and a transaction never holds much unsent data
            "producer.override.buffer.memory",
            "32768",
            "producer.override.batch.size",
            "8192"));
    lake.commit(table, upsert(0, "changed", -1), upsert(rows, "new", rows));

    List<Event> committed = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              var task = kafka.connect.connectorStatus("eos-big").tasks().get(0);
              assertThat(task.state()).as(task.trace()).isEqualTo("RUNNING");
              committed.clear();
              committed.addAll(kafka.readAll("eos_big.t", "read_committed"));
              return committed.size() >= rows + 2;
            });
    assertThat(committed).hasSize(rows + 2);
    assertThat(committed.stream().filter(e -> e.op().equals("r")).map(Event::id))
        .doesNotHaveDuplicates()
        .hasSize(rows);
    assertThat(ChangeReplay.replay(committed, List.of("id", "name", "qty")))
        .isEqualTo(lake.rows(table));
  }
}
