package io.changelake.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.connect.ChangelakeConnectors;
import io.changelake.e2e.connect.DebeziumPostgres;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.Test;

/**
 * Scenario 6: while the same keys keep changing, a second Connect worker joins (the sink's
 * partitions move to it) and leaves again (they move back). Per-key order must survive both moves:
 * the table ends equal to the database.
 */
class RebalanceTest extends PipelineTestBase {

  @Test
  void workerJoiningAndLeavingKeepsPerKeyOrder() throws Exception {
    createDatabase("s6");
    pg.execute(
        "s6",
        "CREATE TABLE hot (id int PRIMARY KEY, v bigint, tag text)",
        "INSERT INTO hot SELECT i, 0, 'start' FROM generate_series(1, 40) i");
    Map<String, String> debezium = DebeziumPostgres.config(pg, "s6", "s6", "public.hot");
    debezium.put("topic.creation.default.partitions", "4");
    connect.deploy("s6-pg", debezium, 1);
    Map<String, String> sink = ChangelakeConnectors.sink(warehouse, "s6\\..*", "s6");
    sink.put("tasks.max", "2");
    connect.deploy("s6-sink", sink, 2);
    awaitLakeEqualsDatabase("s6", "hot");

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong rounds = new AtomicLong();
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              while (!stop.get()) {
                long r = rounds.incrementAndGet();
                pg.execute("s6", "UPDATE hot SET v = v + 1, tag = 'round " + r + "'");
                try {
                  // a steady trickle: the point is order across moves, not throughput
                  Thread.sleep(100);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
            });
    try {
      Thread.sleep(3000);
      WorkerHandle second = connect.cluster().addWorker();
      connect.awaitRunning("s6-sink", 2);
      Thread.sleep(8000);
      connect.cluster().removeWorker(second);
      connect.awaitRunning("s6-sink", 2);
      connect.awaitRunning("s6-pg", 1);
      Thread.sleep(5000);
    } finally {
      stop.set(true);
      writer.get();
    }
    assertThat(rounds.get()).as("updates ran during both moves").isGreaterThan(20);
    awaitLakeEqualsDatabase("s6", "hot");
  }
}
