package io.changelake.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.PluginWorkers;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The harness itself: a throwaway PostgreSQL cluster and Debezium on the embedded Connect platform
 * capture a snapshot and a streamed change, and dropping the database's slots frees it.
 */
class DebeziumOnPlatformTest {
  static PostgresServer pg;
  static ConnectPlatform connect;

  @BeforeAll
  static void start() {
    pg = PostgresServer.start();
    connect = PluginWorkers.start("harness");
  }

  @AfterAll
  static void stop() {
    if (connect != null) {
      connect.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void snapshotAndStreamingReachTheTopic() {
    pg.createDatabase("harness");
    pg.execute(
        "harness",
        "CREATE TABLE items (id int PRIMARY KEY, name text)",
        "INSERT INTO items VALUES (1, 'snap')");
    connect.deploy("pg-harness", DebeziumPostgres.config(pg, "harness", "hx", "public.items"), 1);
    pg.execute("harness", "INSERT INTO items VALUES (2, 'stream')");

    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<ConsumerRecord<byte[], byte[]>> records =
                  connect.readAll("hx.public.items", false);
              assertThat(records)
                  .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                  .anySatisfy(v -> assertThat(v).contains("\"op\":\"r\"").contains("snap"))
                  .anySatisfy(v -> assertThat(v).contains("\"op\":\"c\"").contains("stream"));
            });
    assertThat(pg.replicationSlots("harness")).containsExactly(DebeziumPostgres.slotName("hx"));

    connect.delete("pg-harness");
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              pg.dropReplicationSlots("harness");
              assertThat(pg.replicationSlots("harness")).isEmpty();
            });
    pg.execute("postgres", "DROP DATABASE harness");
  }
}
