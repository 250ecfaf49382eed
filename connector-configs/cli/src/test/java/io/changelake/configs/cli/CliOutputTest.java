package io.changelake.configs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changelake.configs.rest.FakeConnect;
import org.junit.jupiter.api.Test;

/** {@code -o json} and the 409 retry as a user of the CLI sees them, against a scripted Connect. */
class CliOutputTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void statusRetriesThroughARebalanceAndPrintsOnlyJsonOnStdout() throws Exception {
    try (FakeConnect connect =
        new FakeConnect(n -> n == 1 ? FakeConnect.rebalancing() : FakeConnect.running("orders"))) {

      CliRun run = CliRun.of("status", "orders", "-c", connect.url(), "-o", "json");

      assertThat(run.exitCode()).as(run.all()).isZero();
      assertThat(run.err())
          .contains("Kafka Connect is rebalancing (409 on GET /connectors/orders/status)")
          .contains("attempt 2 of 7");
      JsonNode status = JSON.readTree(run.out());
      assertThat(status.path("connect_url").asText()).isEqualTo(connect.url());
      JsonNode orders = status.path("connectors").path(0);
      assertThat(orders.path("name").asText()).isEqualTo("orders");
      assertThat(orders.path("state").asText()).isEqualTo("RUNNING");
      assertThat(orders.path("worker_id").asText()).isEqualTo("w:8083");
      assertThat(orders.path("trace").isNull()).isTrue();
      assertThat(orders.path("tasks").path(0).path("state").asText()).isEqualTo("RUNNING");
      assertThat(status.path("not_found")).isEmpty();
    }
  }

  @Test
  void anErrorIsAJsonDocumentTooWithTheExitCode() throws Exception {
    try (FakeConnect connect = new FakeConnect(n -> FakeConnect.rebalancing())) {

      CliRun run = CliRun.of("status", "-c", connect.url(), "-o", "json", "--retries", "0");

      assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCodes.CONNECT_ERROR);
      JsonNode error = JSON.readTree(run.out()).path("error");
      assertThat(error.path("exit_code").asInt()).isEqualTo(ExitCodes.CONNECT_ERROR);
      assertThat(error.path("message").asText()).contains("answered 409");
      assertThat(run.err()).contains("error: ").contains("answered 409");
    }
  }
}
