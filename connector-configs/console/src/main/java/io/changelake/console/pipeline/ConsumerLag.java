package io.changelake.console.pipeline;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** Consumer lag of sink connectors' consumer groups, through Kafka's admin API. */
final class ConsumerLag implements AutoCloseable {
  private static final long TIMEOUT_SECONDS = 10;

  private final Admin admin;

  ConsumerLag(String bootstrapServers) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "changelake-console");
    // a poll of the page must not hang on an unreachable broker for Kafka's default minute
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Duration.ofSeconds(8).toMillis());
    props.put(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Duration.ofSeconds(10).toMillis());
    this.admin = Admin.create(props);
  }

  /** Connect's group of a sink: {@code connect-<name>} unless the config overrides it. */
  static String groupOf(String connector, Map<String, String> config) {
    return Optional.ofNullable(config.get("consumer.override.group.id"))
        .orElse("connect-" + connector);
  }

  /** Records not yet consumed per topic by {@code group}; topics it never committed are absent. */
  Map<String, Long> lagPerTopic(String group) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
          admin.listOffsets(latest).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Map<String, Long> lag = new TreeMap<>();
      committed.forEach(
          (tp, offset) -> {
            if (offset != null && ends.containsKey(tp)) {
              lag.merge(
                  tp.topic(), Math.max(0, ends.get(tp).offset() - offset.offset()), Long::sum);
            }
          });
      return lag;
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "Cannot read the lag of consumer group " + group + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted reading consumer lag of " + group, e);
    }
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
