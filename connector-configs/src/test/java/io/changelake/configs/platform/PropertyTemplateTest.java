package io.changelake.configs.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PropertyTemplateTest {

  @Test
  void theBrokerTemplateYieldsItsKeysInFileOrderWithThePortsAndDirectoryFilledIn() {
    Map<String, String> broker =
        PropertyTemplate.load(
            "/platform/broker.properties",
            Map.of("kafka.port", "19092", "controller.port", "19093", "log.dirs", "/tmp/k"));

    assertThat(List.copyOf(broker.keySet()).subList(0, 3))
        .containsExactly("process.roles", "node.id", "controller.quorum.voters");
    assertThat(broker)
        .containsEntry("listeners", "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093")
        .containsEntry("log.dirs", "/tmp/k")
        .containsEntry("controller.quorum.voters", "1@127.0.0.1:19093");
  }

  @Test
  void connectPlaceholdersInAConnectorTemplateStayForTheConnectorToResolve() {
    Map<String, String> sink =
        PropertyTemplate.load(
            "/quickstart/sink.properties",
            Map.of("topics", "t", "warehouse", "file:///lake", "lake.database", "quickstart"));

    assertThat(sink)
        .containsEntry("route.table.format", "${source.table}")
        .containsEntry("paimon.warehouse", "file:///lake")
        .containsEntry("compaction.interval.ms", "2000");
  }

  @Test
  void aPlaceholderWithoutValueFailsNamingResourceKeyAndPlaceholder() {
    assertThatThrownBy(
            () -> PropertyTemplate.load("/platform/worker.properties", Map.of("connect.port", "1")))
        .hasMessageContaining("/platform/worker.properties")
        .hasMessageContaining("'bootstrap.servers'")
        .hasMessageContaining("{{bootstrap.servers}}");
  }
}
