package io.changelake.e2e.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The raw figures of a run, one line per (measurement, case, repetition, metric), appended to a CSV
 * file as soon as they are measured so a run cut short still leaves its numbers.
 */
final class Results {

  static final String HEADER = "measurement,case,run,metric,value,unit,note";

  /** One measured value. {@code run} counts repetitions from 1; 0 for single-shot figures. */
  record Row(
      String measurement,
      String caseName,
      int run,
      String metric,
      double value,
      String unit,
      String note) {

    String toCsv() {
      return String.join(
          ",",
          measurement,
          quote(caseName),
          String.valueOf(run),
          metric,
          String.format(Locale.ROOT, "%.6g", value),
          unit,
          quote(note == null ? "" : note));
    }

    static Row parse(String line) {
      List<String> cells = splitCsv(line);
      return new Row(
          cells.get(0),
          cells.get(1),
          Integer.parseInt(cells.get(2)),
          cells.get(3),
          Double.parseDouble(cells.get(4)),
          cells.get(5),
          cells.size() > 6 ? cells.get(6) : "");
    }
  }

  /** Median, minimum and maximum of the repetitions of one figure. */
  record Stats(double median, double min, double max, int n) {
    static Stats of(List<Double> values) {
      if (values.isEmpty()) {
        return new Stats(Double.NaN, Double.NaN, Double.NaN, 0);
      }
      double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double median =
          v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
      return new Stats(median, v[0], v[v.length - 1], v.length);
    }
  }

  private final Path csv;
  private final List<Row> rows = new ArrayList<>();

  private Results(Path csv) {
    this.csv = csv;
  }

  /** Starts a new results file (an earlier run's file is replaced). */
  static Results create(Path csv) {
    try {
      Files.createDirectories(csv.getParent());
      Files.writeString(csv, HEADER + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Results(csv);
  }

  static Results read(Path csv) {
    Results results = new Results(csv);
    try {
      List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
      for (String line : lines.subList(1, lines.size())) {
        if (!line.isBlank()) {
          results.rows.add(Row.parse(line));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return results;
  }

  synchronized void add(
      String measurement, String caseName, int run, String metric, double value, String unit) {
    add(new Row(measurement, caseName, run, metric, value, unit, ""));
  }

  /** Records that a case could not be measured, with the reason, so the report can say so. */
  synchronized void failed(String measurement, String caseName, Throwable error) {
    String reason = String.valueOf(error.getMessage()).lines().findFirst().orElse("");
    add(
        new Row(
            measurement,
            caseName,
            0,
            "failed",
            Double.NaN,
            "",
            error.getClass().getSimpleName() + ": " + reason));
  }

  synchronized void add(Row row) {
    rows.add(row);
    try {
      Files.writeString(csv, row.toCsv() + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized List<Row> rows() {
    return List.copyOf(rows);
  }

  Stats stats(String measurement, String caseName, String metric) {
    return Stats.of(values(measurement, caseName, metric));
  }

  List<Double> values(String measurement, String caseName, String metric) {
    return rows().stream()
        .filter(r -> r.measurement().equals(measurement))
        .filter(r -> r.caseName().equals(caseName))
        .filter(r -> r.metric().equals(metric))
        .map(Row::value)
        .filter(v -> !v.isNaN())
        .toList();
  }

  /** The value of one repetition, or NaN. */
  double value(String measurement, String caseName, String metric, int run) {
    return rows().stream()
        .filter(r -> r.measurement().equals(measurement) && r.caseName().equals(caseName))
        .filter(r -> r.metric().equals(metric) && r.run() == run)
        .mapToDouble(Row::value)
        .findFirst()
        .orElse(Double.NaN);
  }

  List<String> failures(String measurement) {
    return rows().stream()
        .filter(r -> r.measurement().equals(measurement) && r.metric().equals("failed"))
        .map(r -> r.caseName() + ": " + r.note())
        .distinct()
        .toList();
  }

  private static String quote(String s) {
    if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
      return "\"" + s.replace("\"", "\"\"").replace("\n", " ") + "\"";
    }
    return s;
  }

  private static List<String> splitCsv(String line) {
    List<String> cells = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cell.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cell.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.add(cell.toString());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    cells.add(cell.toString());
    return cells;
  }

  static List<String> header() {
    return Arrays.asList(HEADER.split(","));
  }
}
