package io.changelake.configs;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A test connector writing 0, 1, 2, ... to a topic, one number per poll, with the next number as
 * its source offset: so a restart continues where it stopped, and an offset reset starts over.
 */
public final class CountingSourceConnector extends SourceConnector {
  static final ConfigDef CONFIG =
      new ConfigDef()
          .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Topic to write to")
          .define(
              "fail.on.start",
              ConfigDef.Type.BOOLEAN,
              false,
              ConfigDef.Importance.LOW,
              "Make the task fail when it starts")
          .define(
              "api.password",
              ConfigDef.Type.PASSWORD,
              null,
              ConfigDef.Importance.LOW,
              "A secret the CLI must never print");

  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return CountingTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return CONFIG;
  }

  @Override
  public String version() {
    return "1.0";
  }

  /** The task. */
  public static final class CountingTask extends SourceTask {
    private String topic;
    private String counter;
    private long next;

    @Override
    public String version() {
      return "1.0";
    }

    @Override
    public void start(Map<String, String> props) {
      AbstractConfig config = new AbstractConfig(CONFIG, props);
      if (config.getBoolean("fail.on.start")) {
        throw new ConnectException("boom: this task was told to fail by fail.on.start=true");
      }
      topic = config.getString("topic");
      counter = props.get("name");
      Map<String, Object> offset = context.offsetStorageReader().offset(Map.of("counter", counter));
      next = offset == null ? 0 : ((Number) offset.get("next")).longValue();
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
      Thread.sleep(100);
      long value = next++;
      return List.of(
          new SourceRecord(
              Map.of("counter", counter),
              Map.of("next", next),
              topic,
              null,
              Schema.INT64_SCHEMA,
              value));
    }

    @Override
    public void stop() {}
  }
}
