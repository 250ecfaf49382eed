package io.changelake.configs;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/** One in-process Kafka + Connect cluster, started per test class. */
public final class ConnectTestCluster {
  private ConnectTestCluster() {}

  public static EmbeddedConnectCluster start(String name) {
    // workerProps must be mutable: the builder adds its own keys
    Map<String, String> worker = new HashMap<>();
    worker.put("plugin.discovery", "service_load");
    worker.put("offset.flush.interval.ms", "500");
    EmbeddedConnectCluster cluster =
        (EmbeddedConnectCluster)
            new EmbeddedConnectCluster.Builder()
                .name(name)
                .numWorkers(1)
                .workerProps(worker)
                .build();
    cluster.start();
    return cluster;
  }

  public static String url(EmbeddedConnectCluster cluster) {
    return cluster.workers().iterator().next().url().toString();
  }
}
