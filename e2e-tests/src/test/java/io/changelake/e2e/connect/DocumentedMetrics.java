package io.changelake.e2e.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * The metrics a connector's README documents, as its {@code ## Metrics} tables list them, and the
 * metrics a connector's tasks register on a worker, as JMX shows them: the two must be the same
 * set, so the documentation is the list of what a user can graph.
 */
public final class DocumentedMetrics {
  private static final Pattern NAME = Pattern.compile("`([a-z0-9-]+)`");

  private DocumentedMetrics() {}

  /** The README of module {@code module} (e.g. {@code connect-sink}), from e2e-tests' folder. */
  public static Path readme(String module) {
    return Path.of("..", module, "README.md");
  }

  /**
   * Every metric the tables of {@code readme}'s {@code ## Metrics} section list: the first cell of
   * each row, where {@code `x-rate`, `-avg`, `-max`} stands for {@code x-rate}, {@code x-avg} and
   * {@code x-max}.
   */
  public static Set<String> documented(Path readme) {
    List<String> lines;
    try {
      lines = Files.readAllLines(readme);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> names = new TreeSet<>();
    boolean inSection = false;
    for (String line : lines) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## Metrics");
        continue;
      }
      if (!inSection || !line.startsWith("|") || line.startsWith("|---")) {
        continue;
      }
      String firstCell = line.substring(1, line.indexOf('|', 1));
      Matcher name = NAME.matcher(firstCell);
      String first = null;
      while (name.find()) {
        String found = name.group(1);
        if (first == null) {
          first = found;
          names.add(found);
        } else if (found.startsWith("-")) {
          names.add(first.substring(0, first.lastIndexOf('-')) + found);
        } else {
          names.add(found);
        }
      }
    }
    if (names.isEmpty()) {
      throw new AssertionError(readme + " has no metric table under '## Metrics'");
    }
    return names;
  }

  /**
   * The attribute names of every MBean the tasks of {@code connector} publish under {@code
   * kafka.connect:type=plugins} (the tasks' own metrics, whichever way the worker publishes them).
   */
  public static Set<String> registered(MBeanServerConnection server, String connector)
      throws Exception {
    Set<String> names = new TreeSet<>();
    for (ObjectName bean :
        server.queryNames(
            new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null)) {
      for (MBeanAttributeInfo attribute : server.getMBeanInfo(bean).getAttributes()) {
        names.add(attribute.getName());
      }
    }
    return names;
  }
}
