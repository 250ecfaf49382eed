package io.changelake.e2e.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.e2e.connect.ConnectWorkerProcess;
import io.changelake.e2e.connect.DebeziumPostgres;
import io.changelake.e2e.connect.TestBroker;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash machinery: a worker in its own JVM runs Debezium, is killed with SIGKILL mid-stream,
 * starts again on the same group, and the connector resumes so that no row is missing from the
 * topic (Debezium is at-least-once: duplicates are allowed here).
 */
class WorkerProcessKillTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void killedWorkerRestartsAndItsConnectorResumes() throws Exception {
    try (PostgresServer pg = PostgresServer.start();
        TestBroker broker = TestBroker.start();
        ConnectWorkerProcess worker =
            ConnectWorkerProcess.start(dir, broker.bootstrapServers(), "kill-test", Map.of())) {
      pg.createDatabase("killdb");
      pg.execute(
          "killdb",
          "CREATE TABLE t (id int PRIMARY KEY, v text)",
          "INSERT INTO t SELECT i, 'a' FROM generate_series(1, 100) i");
      worker.putConnector("pg", DebeziumPostgres.config(pg, "killdb", "kt", "public.t"));
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> worker.running("pg", 1));
      pg.execute("killdb", "INSERT INTO t SELECT i, 'b' FROM generate_series(101, 200) i");
      awaitIds(broker, 200);

      worker.kill();
      assertThat(worker.alive()).isFalse();
      pg.execute("killdb", "INSERT INTO t SELECT i, 'c' FROM generate_series(201, 300) i");
      worker.launch();
      Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> worker.running("pg", 1));
      awaitIds(broker, 300);
    }
  }

  private static void awaitIds(TestBroker broker, int upTo) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              Set<Integer> ids = new TreeSet<>();
              for (var r :
                  ConnectPlatform.readAll(broker.bootstrapServers(), "kt.public.t", false)) {
                ids.add(JSON.readTree(r.value()).path("payload").path("after").path("id").asInt());
              }
              assertThat(ids).hasSize(upTo).contains(1, upTo);
            });
  }
}
