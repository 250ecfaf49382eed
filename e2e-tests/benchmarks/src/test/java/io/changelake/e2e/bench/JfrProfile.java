package io.changelake.e2e.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JDK Flight Recorder profile of part of a run, summarized as the methods where CPU samples land
 * (top frame) and the packages that own the time (first frame outside the JDK).
 */
final class JfrProfile implements AutoCloseable {

  /**
   * Sample counts by method and by package, most frequent first, and by phase: the samples with a
   * phase's frame anywhere on their stack (phases nest, so their shares do not add up).
   */
  record Summary(
      long samples,
      Map<String, Long> topMethods,
      Map<String, Long> topPackages,
      Map<String, Long> phases) {}

  /** A phase of the work: its samples have a frame starting with one of the prefixes. */
  private record Phase(String label, List<String> framePrefixes) {
    boolean matches(String frame) {
      return framePrefixes.stream().anyMatch(frame::startsWith);
    }
  }

  private static final List<Phase> PHASES =
      List.of(
          new Phase(
              "converting records (Converter.toConnectData)",
              List.of(
                  "org.apache.kafka.connect.json.JsonConverter.toConnectData",
                  "io.changelake.sink.converter.CachingJsonConverter.toConnectData",
                  "io.apicurio.registry.utils.converter.SerdeBasedConverter.toConnectData")),
          new Phase(
              "converting records (Converter.fromConnectData)",
              List.of(
                  "org.apache.kafka.connect.json.JsonConverter.fromConnectData",
                  "io.changelake.sink.converter.CachingJsonConverter.fromConnectData")),
          new Phase(
              "Changelake sink: put", List.of("io.changelake.sink.task.ChangelakeSinkTask.put")),
          new Phase(
              "Changelake sink: commits (Paimon flush to Parquet, snapshot)",
              List.of("io.changelake.sink.task.ChangelakeSinkTask.commit")),
          new Phase(
              "Parquet writing",
              List.of(
                  "org.apache.paimon.format.parquet.writer",
                  "org.apache.paimon.shade.org.apache.parquet.hadoop.ParquetWriter")),
          new Phase("Iceberg sink: put", List.of("org.apache.iceberg.connect")),
          new Phase(
              "Changelake source: poll (read the table, build records)",
              List.of("io.changelake.source.ChangelakeSourceTask.poll")),
          new Phase(
              "Changelake source: reading the changelog",
              List.of("io.changelake.lsm.changelog.ChangelogReader.poll")),
          new Phase(
              "Kafka producer: send",
              List.of("org.apache.kafka.clients.producer.KafkaProducer.send")),
          new Phase(
              "Kafka consumer: poll", List.of("org.apache.kafka.clients.consumer.KafkaConsumer")));

  static final long WAIT_THRESHOLD_MS = 2;
  private static final String MONITOR_ENTER = "jdk.JavaMonitorEnter";
  private static final String THREAD_PARK = "jdk.ThreadPark";
  private static final java.time.Duration WAIT_THRESHOLD =
      java.time.Duration.ofMillis(WAIT_THRESHOLD_MS);

  /**
   * Time threads spent blocked on a monitor or parked, by where they waited: the event kind, the
   * first frame outside the JDK and the class of the monitor or of the parked-on object, longest
   * first.
   */
  record Waits(long events, double totalMillis, Map<String, Double> millisBySite) {}

  private final Recording recording;
  private final Path file;

  /** Starts recording CPU samples of every thread. */
  JfrProfile(Path file) {
    this.file = file;
    try {
      recording = new Recording(Configuration.getConfiguration("profile"));
    } catch (IOException | ParseException e) {
      throw new IllegalStateException(e);
    }
    recording.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(10));
    // where threads wait: a lock shared by tasks shows up as monitor or park time on task threads
    recording.enable(MONITOR_ENTER).withThreshold(WAIT_THRESHOLD).withStackTrace();
    recording.enable(THREAD_PARK).withThreshold(WAIT_THRESHOLD).withStackTrace();
    recording.start();
  }

  void stop() {
    recording.stop();
    try {
      recording.dump(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Summarizes the samples whose stack has a frame of a class whose name starts with {@code
   * stackClassPrefix} (empty: every sample). Thread names do not work as a filter: Connect renames
   * pooled threads, and a recording keeps the name a thread had when first seen.
   */
  Summary summary(String stackClassPrefix, int top) {
    try {
      Map<String, Long> methods = new HashMap<>();
      Map<String, Long> packages = new HashMap<>();
      Map<String, Long> phases = new LinkedHashMap<>();
      long samples = 0;
      for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
        if (!event.getEventType().getName().equals("jdk.ExecutionSample")
            || event.getStackTrace() == null) {
          continue;
        }
        List<RecordedFrame> frames = event.getStackTrace().getFrames();
        if (frames.isEmpty()
            || frames.stream()
                .noneMatch(f -> f.getMethod().getType().getName().startsWith(stackClassPrefix))) {
          continue;
        }
        samples++;
        methods.merge(name(frames.get(0)), 1L, Long::sum);
        packages.merge(owner(frames), 1L, Long::sum);
        List<String> names = frames.stream().map(JfrProfile::name).toList();
        for (Phase phase : PHASES) {
          if (names.stream().anyMatch(phase::matches)) {
            phases.merge(phase.label(), 1L, Long::sum);
          }
        }
      }
      return new Summary(samples, top(methods, top), top(packages, top), phases);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Monitor and park waits of at least {@value #WAIT_THRESHOLD_MS} ms on stacks with a frame of a
   * class starting with {@code stackClassPrefix}.
   */
  Waits waits(String stackClassPrefix, int top) {
    try {
      Map<String, Double> bySite = new HashMap<>();
      long events = 0;
      double total = 0;
      for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
        String type = event.getEventType().getName();
        if (!(type.equals(MONITOR_ENTER) || type.equals(THREAD_PARK))
            || event.getStackTrace() == null) {
          continue;
        }
        List<RecordedFrame> frames = event.getStackTrace().getFrames();
        if (frames.stream()
            .noneMatch(f -> f.getMethod().getType().getName().startsWith(stackClassPrefix))) {
          continue;
        }
        double millis = event.getDuration().toNanos() / 1e6;
        String on =
            type.equals(MONITOR_ENTER)
                ? "monitor " + className(event, "monitorClass")
                : "park on " + className(event, "parkedClass");
        String site = on + " in " + firstOutsideJdk(frames);
        bySite.merge(site, millis, Double::sum);
        events++;
        total += millis;
      }
      Map<String, Double> result = new LinkedHashMap<>();
      bySite.entrySet().stream()
          .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
          .limit(top)
          .forEach(e -> result.put(e.getKey(), e.getValue()));
      return new Waits(events, total, result);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String className(RecordedEvent event, String field) {
    if (!event.hasField(field)) {
      return "?";
    }
    jdk.jfr.consumer.RecordedClass c = event.getClass(field);
    return c == null ? "?" : c.getName();
  }

  private static String firstOutsideJdk(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      String type = frame.getMethod().getType().getName();
      if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
        return name(frame);
      }
    }
    return frames.isEmpty() ? "?" : name(frames.get(0));
  }

  private static String name(RecordedFrame frame) {
    return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
  }

  /** The package of the first frame not in the JDK: the library that asked for the work. */
  private static String owner(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      String type = frame.getMethod().getType().getName();
      if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
        String[] parts = type.split("\\.");
        return String.join(".", java.util.Arrays.copyOf(parts, Math.min(4, parts.length - 1)));
      }
    }
    return "(JDK only)";
  }

  private static Map<String, Long> top(Map<String, Long> counts, int n) {
    Map<String, Long> result = new LinkedHashMap<>();
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(n)
        .forEach(e -> result.put(e.getKey(), e.getValue()));
    return result;
  }

  @Override
  public void close() {
    recording.close();
  }
}
