package io.changelake.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.sink.converter.CachingJsonConverter;
import io.changelake.sink.task.ChangelakeSinkTask;
import io.changelake.sink.transforms.IsTruncate;
import org.junit.jupiter.api.Test;

class VersionsTest {
  @Test
  void everyPluginOfTheSinkReportsTheBuildVersion() {
    String built = System.getProperty("changelake.version");
    assertThat(built).as("surefire passes the pom's version").isNotBlank();
    assertThat(new ChangelakeSinkConnector().version()).isEqualTo(built);
    assertThat(new ChangelakeSinkTask().version()).isEqualTo(built);
    assertThat(new CachingJsonConverter().version()).isEqualTo(built);
    assertThat(new IsTruncate<>().version()).isEqualTo(built);
  }
}
