package io.changelake.configs.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Calls answered with 409 while Connect rebalances are retried with a bounded backoff. */
class RebalanceRetryTest {
  private static final RebalanceRetry QUICK =
      new RebalanceRetry(3, Duration.ofMillis(10), Duration.ofMillis(20));

  private static ConnectClient client(FakeConnect connect, List<String> notices) {
    return new ConnectClient(ConnectEndpoint.plain(connect.url()), QUICK, notices::add);
  }

  @Test
  void aCallAnswered409IsRetriedAndSucceedsOnceConnectAnswers() throws Exception {
    List<String> notices = new ArrayList<>();
    try (FakeConnect connect =
        new FakeConnect(n -> n <= 2 ? FakeConnect.rebalancing() : FakeConnect.running("orders"))) {

      ConnectorState state = client(connect, notices).status("orders");

      assertThat(state.connector().state()).isEqualTo(ConnectorState.RUNNING);
      assertThat(connect.requests())
          .hasSize(3)
          .allMatch(r -> r.equals("GET /connectors/orders/status"));
      assertThat(notices)
          .containsExactly(
              "Kafka Connect is rebalancing (409 on GET /connectors/orders/status): retrying in"
                  + " 10 ms (attempt 2 of 3)",
              "Kafka Connect is rebalancing (409 on GET /connectors/orders/status): retrying in"
                  + " 20 ms (attempt 3 of 3)");
    }
  }

  @Test
  void stillConflictingAfterTheLastAttemptTheErrorSaysHowOftenItWasTried() throws Exception {
    List<String> notices = new ArrayList<>();
    try (FakeConnect connect = new FakeConnect(n -> FakeConnect.rebalancing())) {

      ConnectRestException e =
          catchThrowableOfType(
              ConnectRestException.class, () -> client(connect, notices).connectors());

      assertThat(e.status()).isEqualTo(409);
      assertThat(e.getMessage())
          .contains("GET " + connect.url() + "/connectors answered 409")
          .contains("stale configuration")
          .contains("still 409 after 3 attempts");
      assertThat(connect.requests()).hasSize(3);
      assertThat(notices).hasSize(2);
    }
  }

  @Test
  void aReadAnswered500BecauseARebalanceIsExpectedIsRetriedToo() throws Exception {
    // Connect 3.x/4.x answer GET /connectors/{name}/config with 500 and the message of its
    // RebalanceNeededException right after a connector was created (seen in CliAgainstConnectTest:
    // plan straight after deploy --no-wait printed nothing)
    List<String> notices = new ArrayList<>();
    try (FakeConnect connect =
        new FakeConnect(
            n ->
                n == 1
                    ? new FakeConnect.Answer(
                        500,
                        "{\"error_code\":500,\"message\":\"Request cannot be completed because"
                            + " a rebalance is expected\"}")
                    : new FakeConnect.Answer(200, "{\"topic\":\"orders\"}"))) {

      assertThat(client(connect, notices).config("orders")).hasValue(Map.of("topic", "orders"));
      assertThat(connect.requests()).hasSize(2);
      assertThat(notices)
          .containsExactly(
              "Kafka Connect is rebalancing (500 on GET /connectors/orders/config): retrying in"
                  + " 10 ms (attempt 2 of 3)");
    }
  }

  @Test
  void stillExpectingARebalanceAfterTheLastAttemptTheErrorSaysSo() throws Exception {
    try (FakeConnect connect =
        new FakeConnect(
            n ->
                new FakeConnect.Answer(
                    500,
                    "{\"message\":\"Request cannot be completed because a rebalance is"
                        + " expected\"}"))) {

      ConnectRestException e =
          catchThrowableOfType(
              ConnectRestException.class,
              () -> client(connect, new ArrayList<>()).config("orders"));

      assertThat(e.status()).isEqualTo(500);
      assertThat(e.getMessage())
          .contains("answered 500: Request cannot be completed because a rebalance is expected")
          .contains("still refused after 3 attempts: a rebalance is expected");
      assertThat(connect.requests()).hasSize(3);
    }
  }

  @Test
  void otherErrorsAreNotRetried() throws Exception {
    try (FakeConnect connect =
        new FakeConnect(n -> new FakeConnect.Answer(500, "{\"message\":\"boom\"}"))) {

      ConnectRestException e =
          catchThrowableOfType(
              ConnectRestException.class, () -> client(connect, new ArrayList<>()).connectors());

      assertThat(e.status()).isEqualTo(500);
      assertThat(connect.requests()).hasSize(1);
    }
  }

  @Test
  void theBackoffDoublesUpToItsBound() {
    RebalanceRetry retry = RebalanceRetry.DEFAULT;

    assertThat(List.of(1, 2, 3, 4, 5, 6).stream().map(retry::backoffAfter).toList())
        .containsExactly(
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8),
            Duration.ofSeconds(8));
  }
}
