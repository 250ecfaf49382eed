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

  /** Sample counts by method and by package, most frequent first. */
  record Summary(long samples, Map<String, Long> topMethods, Map<String, Long> topPackages) {}

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
      }
      return new Summary(samples, top(methods, top), top(packages, top));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
