package io.changelake.e2e.bench;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * The throughput ceiling of a source on a worker: the task hands the worker records it already
 * holds in memory (see {@link DoNothingSourceTask}); the worker converts, sends and commits
 * offsets. Installed as its own plugin by {@link BenchPlugins}.
 */
public class DoNothingSourceConnector extends SourceConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return DoNothingSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return Collections.nCopies(maxTasks, props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public String version() {
    return "1";
  }
}
