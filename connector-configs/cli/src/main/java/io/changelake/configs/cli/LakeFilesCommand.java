package io.changelake.configs.cli;

import io.changelake.configs.lake.LakeInspector;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "files",
    description = {
      "Shows a table's data files of the latest snapshot (TABLE$files) per partition, bucket and"
          + " LSM level: files, rows, bytes. Many level-0 files in a bucket mean compaction lags.",
      "--list prints every file; -o json gives the summary and every column of each file."
    })
final class LakeFilesCommand extends LakeCommand.TableSubcommand<LakeFilesCommand.Result> {
  @Option(names = "--list", description = "Print every file, not only the summary.")
  boolean list;

  /** Files of one level in one bucket. */
  record Level(int level, int files, long records, long bytes) {}

  /**
   * One bucket of one partition ({@code partition} as Paimon prints it, "{}" when unpartitioned).
   */
  record Bucket(
      String partition, int bucket, int files, long records, long bytes, List<Level> levels) {}

  /** {@code -o json}: the summary, and the rows of TABLE$files. */
  record Result(String table, List<Bucket> buckets, List<Map<String, Object>> files) {}

  @Override
  Result ask(LakeInspector inspector) {
    List<Map<String, Object>> files = inspector.files(table);
    return new Result(table, buckets(files), files);
  }

  static List<Bucket> buckets(List<Map<String, Object>> files) {
    record Key(String partition, int bucket) {}
    Map<Key, TreeMap<Integer, long[]>> byBucket = new LinkedHashMap<>();
    for (Map<String, Object> file : files) {
      Key key =
          new Key(
              Objects.toString(file.get("partition"), "{}"),
              ((Number) file.get("bucket")).intValue());
      long[] sums =
          byBucket
              .computeIfAbsent(key, k -> new TreeMap<>())
              .computeIfAbsent(((Number) file.get("level")).intValue(), l -> new long[3]);
      sums[0]++;
      sums[1] += ((Number) file.get("record_count")).longValue();
      sums[2] += ((Number) file.get("file_size_in_bytes")).longValue();
    }
    List<Bucket> buckets = new ArrayList<>();
    byBucket.forEach(
        (key, levels) -> {
          List<Level> list = new ArrayList<>();
          levels.forEach((level, s) -> list.add(new Level(level, (int) s[0], s[1], s[2])));
          buckets.add(
              new Bucket(
                  key.partition(),
                  key.bucket(),
                  list.stream().mapToInt(Level::files).sum(),
                  list.stream().mapToLong(Level::records).sum(),
                  list.stream().mapToLong(Level::bytes).sum(),
                  list));
        });
    buckets.sort(
        (a, b) ->
            a.partition().equals(b.partition())
                ? Integer.compare(a.bucket(), b.bucket())
                : a.partition().compareTo(b.partition()));
    return buckets;
  }

  @Override
  void printText(PrintWriter out, Result result) {
    if (result.files().isEmpty()) {
      out.println(result.table() + ": no data files");
      out.flush();
      return;
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Bucket bucket : result.buckets()) {
      for (Level level : bucket.levels()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("partition", bucket.partition());
        row.put("bucket", bucket.bucket());
        row.put("level", level.level());
        row.put("files", level.files());
        row.put("rows", level.records());
        row.put("bytes", level.bytes());
        rows.add(row);
      }
    }
    TextTable.print(out, List.copyOf(rows.get(0).keySet()), rows);
    out.printf("  %d files in %d buckets%n", result.files().size(), result.buckets().size());
    if (list) {
      out.println();
      TextTable.print(
          out,
          List.of(
              "partition", "bucket", "level", "file_path", "record_count", "file_size_in_bytes"),
          result.files());
    }
    out.flush();
  }
}
