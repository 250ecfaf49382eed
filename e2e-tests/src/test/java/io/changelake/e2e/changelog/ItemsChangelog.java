package io.changelake.e2e.changelog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.changelake.e2e.compare.DbTableReader;
import io.changelake.testkit.connect.ConnectPlatform;
import io.changelake.testkit.postgres.PostgresServer;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.awaitility.Awaitility;

/**
 * The changelog of a {@link io.changelake.e2e.postgres.ChangeLoad} {@code items} table, checked
 * against the database: read with {@code read_committed}, it must replay into the table's rows with
 * every event chaining onto the previous state of its key (none lost, none duplicated).
 */
public final class ItemsChangelog {
  private ItemsChangelog() {}

  /**
   * Waits until the changelog in {@code topic} replays into the rows of {@code database}'s {@code
   * public.items}; {@code failure} (null while healthy) ends the wait at once.
   */
  public static void awaitEqualsDatabase(
      ConnectPlatform connect,
      PostgresServer pg,
      String database,
      String topic,
      Supplier<String> failure,
      Duration timeout) {
    awaitEqualsDatabase(connect.bootstrapServers(), pg, database, topic, failure, timeout);
  }

  /** As {@link #awaitEqualsDatabase}, reading the topic from the broker at {@code bootstrap}. */
  public static void awaitEqualsDatabase(
      String bootstrap,
      PostgresServer pg,
      String database,
      String topic,
      Supplier<String> failure,
      Duration timeout) {
    Map<Integer, String> expected = new TreeMap<>();
    for (Map<String, Object> row : DbTableReader.read(pg, database, "public", "items").rows()) {
      expected.put((Integer) row.get("id"), row.get("qty") + "|" + row.get("note"));
    }
    Awaitility.await()
        .atMost(timeout)
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              assertThat(failure.get()).isNull();
              ChangelogReplay replay =
                  ChangelogReplay.of(ConnectPlatform.readAll(bootstrap, topic, true));
              assertThat(replay.violations()).as("changelog chain").isEmpty();
              Map<Integer, String> rows = new TreeMap<>();
              for (JsonNode after : replay.state().values()) {
                rows.put(
                    after.path("id").asInt(),
                    after.path("qty").asLong() + "|" + after.path("note").asText());
              }
              assertThat(rows).isEqualTo(expected);
            });
  }
}
