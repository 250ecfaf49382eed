package io.changelake.e2e.bench;

import io.changelake.testkit.connect.ConnectPlatform;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;

/**
 * Runs one sink connector over preloaded topics and measures it: from submitting its config until
 * its consumer group has committed every offset (for the Changelake and Iceberg sinks that means
 * the data is committed to the table), with the CPU the JVM and the task threads used meanwhile.
 */
final class SinkRunner implements AutoCloseable {

  /** One measured run. */
  record Measurement(
      long events,
      double seconds,
      double processCpuSeconds,
      double taskCpuSeconds,
      double steadyEventsPerSecond,
      ConsumptionSampler.Reading reading) {
    double eventsPerSecond() {
      return events / seconds;
    }

    double processCpuMicrosPerEvent() {
      return processCpuSeconds * 1e6 / events;
    }

    double taskCpuMicrosPerEvent() {
      return taskCpuSeconds * 1e6 / events;
    }

    /**
     * Events per second from submitting the connector until its tasks had read every event,
     * whatever the commit interval: with a long interval the wait for the last commit would
     * otherwise dominate short runs.
     */
    double readEventsPerSecond() {
      return events / reading.secondsToReadAll();
    }
  }

  private final ConnectPlatform platform;
  private final Admin admin;

  SinkRunner(ConnectPlatform platform) {
    this.platform = platform;
    this.admin = Admin.create(Map.of("bootstrap.servers", platform.bootstrapServers()));
  }

  Measurement run(String name, Map<String, String> config, Collection<String> topics) {
    return run(name, config, topics, () -> {});
  }

  /** Like {@link #run}, then runs {@code beforeRemove} while the connector still runs. */
  Measurement run(
      String name, Map<String, String> config, Collection<String> topics, Runnable beforeRemove) {
    Map<TopicPartition, Long> end = endOffsets(topics);
    long events = end.values().stream().mapToLong(Long::longValue).sum();
    // generous: on a shared machine a run can go 5-10x slower than on a quiet one, and a timed-out
    // run is lost for every ratio it is part of
    Duration timeout = Duration.ofSeconds(Math.max(600, events / 250));
    String threadPrefix = "task-thread-" + name + "-";
    System.gc();
    Map<Long, Long> threadBaseline = CpuClock.threadCpuBaseline();
    long cpu0 = CpuClock.processCpuNanos();
    long t0 = System.nanoTime();
    ConsumptionSampler sampler =
        new ConsumptionSampler(
            name, Integer.parseInt(config.getOrDefault("tasks.max", "1")), events, t0);
    platform.cluster().configureConnector(name, config);
    long taskCpu = 0;
    long lastStatusCheck = t0;
    // (time, events committed) at every commit seen: the slope between the first and the last
    // commit is the rate without start-up and without the wait for the final commit
    long firstCommitNanos = -1;
    long firstCommitted = 0;
    long lastCommitNanos = -1;
    long lastCommitted = 0;
    try {
      while (true) {
        long committed = committedEvents(name, end);
        long now = System.nanoTime();
        if (committed > lastCommitted) {
          if (firstCommitNanos < 0) {
            firstCommitNanos = now;
            firstCommitted = committed;
          }
          lastCommitNanos = now;
          lastCommitted = committed;
        }
        if (committed >= events) {
          break;
        }
        if (now - t0 > timeout.toNanos()) {
          throw new IllegalStateException(
              name
                  + " did not commit all "
                  + events
                  + " offsets within "
                  + timeout
                  + "\n"
                  + platform.describe(name));
        }
        if (now - lastStatusCheck > 2_000_000_000L) {
          lastStatusCheck = now;
          failIfFailed(name);
        }
        taskCpu = Math.max(taskCpu, CpuClock.threadCpuNanos(threadPrefix, threadBaseline));
        sleep(100);
      }
      long t1 = System.nanoTime();
      long cpu1 = CpuClock.processCpuNanos();
      taskCpu = Math.max(taskCpu, CpuClock.threadCpuNanos(threadPrefix, threadBaseline));
      double steady =
          lastCommitNanos > firstCommitNanos
              ? (lastCommitted - firstCommitted) / ((lastCommitNanos - firstCommitNanos) / 1e9)
              : Double.NaN;
      sampler.close();
      beforeRemove.run();
      return new Measurement(
          events, (t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9, taskCpu / 1e9, steady, sampler.reading());
    } finally {
      sampler.close();
      remove(name, threadPrefix);
    }
  }

  /** Deletes a connector and waits for its task threads to end, so runs do not overlap. */
  void remove(String name, String threadPrefix) {
    try {
      platform.cluster().deleteConnector(name);
    } catch (RuntimeException e) {
      // already gone: nothing to stop
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (CpuClock.anyThread(threadPrefix) && System.nanoTime() < deadline) {
      sleep(100);
    }
  }

  private void failIfFailed(String name) {
    ConnectorStateInfo info;
    try {
      info = platform.cluster().connectorStatus(name);
    } catch (RuntimeException e) {
      return; // not yet known to the herder
    }
    boolean failed =
        "FAILED".equals(info.connector().state())
            || info.tasks().stream().anyMatch(t -> "FAILED".equals(t.state()));
    if (failed) {
      String status = platform.describe(name);
      throw new IllegalStateException(
          "connector " + name + " failed: " + rootCause(status) + "\n" + status);
    }
  }

  /** The innermost "Caused by" of a status trace: the line a reader needs first. */
  static String rootCause(String trace) {
    String cause = null;
    for (String line : trace.lines().toList()) {
      String t = line.trim();
      if (t.startsWith("Caused by: ")) {
        cause = t.substring("Caused by: ".length());
      } else if (cause == null && t.contains("Exception")) {
        cause = t;
      }
    }
    return cause == null ? "(no trace)" : cause;
  }

  /** Events committed by the connector's consumer group, counting each partition up to its end. */
  private long committedEvents(String name, Map<TopicPartition, Long> end) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets("connect-" + name).partitionsToOffsetAndMetadata().get();
      long total = 0;
      for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
        OffsetAndMetadata offset = committed.get(e.getKey());
        if (offset != null) {
          total += Math.min(offset.offset(), e.getValue());
        }
      }
      return total;
    } catch (Exception e) {
      return 0;
    }
  }

  Map<TopicPartition, Long> endOffsets(Collection<String> topics) {
    try {
      Set<TopicPartition> partitions =
          admin.describeTopics(topics).allTopicNames().get().values().stream()
              .flatMap(
                  d ->
                      d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
              .collect(Collectors.toSet());
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
      Map<TopicPartition, Long> end = new HashMap<>();
      admin.listOffsets(latest).all().get().forEach((tp, info) -> end.put(tp, info.offset()));
      return end;
    } catch (Exception e) {
      throw new IllegalStateException("cannot read end offsets of " + topics, e);
    }
  }

  Admin admin() {
    return admin;
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    admin.close();
  }
}
