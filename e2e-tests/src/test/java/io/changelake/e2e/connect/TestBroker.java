package io.changelake.e2e.connect;

import java.util.Properties;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

/**
 * A single in-process KRaft broker for workers running in their own JVMs. Transactions work on one
 * broker (exactly-once source support needs them); topics are never auto-created.
 */
public final class TestBroker implements AutoCloseable {
  private final EmbeddedKafkaCluster kafka;

  private TestBroker(EmbeddedKafkaCluster kafka) {
    this.kafka = kafka;
  }

  public static TestBroker start() {
    Properties props = new Properties();
    props.put("auto.create.topics.enable", "false");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("offsets.topic.replication.factor", "1");
    EmbeddedKafkaCluster kafka = new EmbeddedKafkaCluster(1, props);
    kafka.start();
    return new TestBroker(kafka);
  }

  public EmbeddedKafkaCluster kafka() {
    return kafka;
  }

  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  @Override
  public void close() {
    kafka.stop();
  }
}
