package io.changelake.e2e.connect;

import io.changelake.testkit.connect.ConnectPlatform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The e2e side of the kit's {@link ConnectPlatform}: workers with the built Changelake plugin
 * archive on {@code plugin.path} (Debezium comes from the test classpath), in-process or in their
 * own JVM ({@link ConnectWorkerProcess}), with the settings every e2e worker shares.
 */
public final class PluginWorkers {
  /** The system property surefire sets to the folder the plugin archive was unpacked into. */
  public static final String PLUGIN_PATH_PROPERTY = "changelake.plugin.path";

  private PluginWorkers() {}

  public static ConnectPlatform start(String name) {
    return start(name, 1, Map.of(), new Properties());
  }

  /**
   * Starts a broker and {@code workers} Connect workers.
   *
   * @param extraWorkerProps added to (and winning over) {@link #workerProps()}
   * @param brokerProps broker settings
   */
  public static ConnectPlatform start(
      String name, int workers, Map<String, String> extraWorkerProps, Properties brokerProps) {
    return ConnectPlatform.builder(name)
        .workers(workers)
        .workerProps(workerProps())
        .workerProps(extraWorkerProps)
        .brokerProps(brokerProps)
        .start();
  }

  /** Worker settings every test worker shares, in-process or in its own JVM. */
  public static Map<String, String> workerProps() {
    Map<String, String> props = new HashMap<>();
    props.put("plugin.discovery", "service_load");
    props.put("plugin.path", pluginPath().toString());
    props.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    props.put("key.converter.schemas.enable", "true");
    props.put("value.converter.schemas.enable", "true");
    // sinks commit on every offset flush: keep the loop short so tests see data quickly
    props.put("offset.flush.interval.ms", "1000");
    // keep the producer buffers of many tasks small inside a 1 GB test heap
    props.put("producer.buffer.memory", String.valueOf(16 * 1024 * 1024));
    props.put("task.shutdown.graceful.timeout.ms", "10000");
    // sinks subscribe with topics.regex before Debezium creates the topic of a table that had no
    // rows yet: see new topics in seconds, not after the default 5 minutes
    props.put("consumer.metadata.max.age.ms", "3000");
    // tasks of a worker that left move on within seconds, not after the default 5 minutes
    props.put("scheduled.rebalance.max.delay.ms", "2000");
    // on an exactly-once worker every source task start first reads the config topic to its end
    // for zombie fencing, within this; Connect's 3 s fails tasks restarted right after a broker
    // outage on a loaded machine ("Failed to read to end of config topic before performing zombie
    // fencing"); connect-source's README recommends the same
    props.put("worker.sync.timeout.ms", "30000");
    return props;
  }

  /** The folder holding the unpacked Changelake plugin archive. */
  public static Path pluginPath() {
    return folderFromProperty(PLUGIN_PATH_PROPERTY, "the unpacked plugin archive");
  }

  /**
   * The unpacked archive itself ({@code changelake-kafka-connect-<version>}, Confluent Hub's
   * layout: {@code manifest.json}, {@code lib/}, {@code etc/}, {@code doc/}) inside {@link
   * #pluginPath()}.
   */
  public static Path pluginFolder() {
    Path folder =
        pluginPath()
            .resolve("changelake-kafka-connect-" + System.getProperty("changelake.version"));
    if (!Files.isDirectory(folder)) {
      throw new IllegalStateException(
          folder
              + " is missing: the plugin archive was not unpacked; run mvn -pl e2e-tests verify");
    }
    return folder;
  }

  /**
   * The existing folder a system property set by e2e-tests/pom.xml names, with a fix when it is
   * missing (the test was started outside Maven).
   */
  public static Path folderFromProperty(String property, String what) {
    String path = System.getProperty(property);
    if (path == null || !Files.isDirectory(Path.of(path))) {
      throw new IllegalStateException(
          "system property "
              + property
              + " must name "
              + what
              + " (got "
              + path
              + "); run the tests through Maven: mvn -pl e2e-tests verify");
    }
    return Path.of(path);
  }
}
