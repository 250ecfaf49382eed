package io.changelake.console.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaHistoryTest {

  @Test
  void eachVersionShowsTheColumnsAddedRemovedAndRetypedSinceThePreviousOne() {
    List<TableView.SchemaVersion> versions =
        SchemaHistory.of(
            List.of(
                // out of order on purpose: versions are sorted by id
                Map.of(
                    "schema_id",
                    1L,
                    "update_time",
                    "2026-12-01T15:01",
                    "fields",
                    "[{\"id\":0,\"name\":\"id\",\"type\":\"INT NOT NULL\"},"
                        + "{\"id\":1,\"name\":\"qty\",\"type\":\"BIGINT\"},"
                        + "{\"id\":3,\"name\":\"note\",\"type\":\"STRING\"}]"),
                Map.of(
                    "schema_id",
                    0L,
                    "update_time",
                    "2026-12-01T15:00",
                    "fields",
                    "[{\"id\":0,\"name\":\"id\",\"type\":\"INT NOT NULL\"},"
                        + "{\"id\":1,\"name\":\"qty\",\"type\":\"INT\"},"
                        + "{\"id\":2,\"name\":\"old\",\"type\":\"STRING\"}]")));

    assertThat(versions).extracting(TableView.SchemaVersion::id).containsExactly(0L, 1L);
    assertThat(versions.get(0).added()).as("the first version is the table's start").isEmpty();
    assertThat(versions.get(0).columns())
        .containsExactly("id INT NOT NULL", "qty INT", "old STRING");
    TableView.SchemaVersion second = versions.get(1);
    assertThat(second.added()).containsExactly("note STRING");
    assertThat(second.removed()).containsExactly("old");
    assertThat(second.changed()).containsExactly("qty: INT -> BIGINT");
    assertThat(second.updateTime()).isEqualTo("2026-12-01T15:01");
  }
}
