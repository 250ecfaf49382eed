package io.changelake.e2e.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.paimon.Snapshot;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ScanMode;

/**
 * What a table's files and snapshots, and the sink tasks' compaction counts, say about who
 * compacted it: the evidence that a table written by several tasks was compacted by exactly one.
 *
 * <p>Ingest writers are write-only: they add level-0 files only and commit as {@code
 * <connector>-task-<n>}. Only a compactor moves files above level 0 and removes level-0 files. So a
 * table nobody compacts keeps every bucket at level 0 and every level-0 file it was given; which
 * task compacted shows in each task's {@code table-compactions-total} (every task publishes it for
 * every table of the connector, 0 where it never compacted). Two compactors at once make Paimon
 * drop or fail a compaction commit, which leaves its files behind: {@link SnapshotAudit} finds
 * those.
 *
 * @param table the table's full name, for messages
 * @param ingestCommitters the commit users of the table's append snapshots
 * @param compactionSnapshots how many compaction snapshots the table has
 * @param highestLevels per bucket with live files, the highest level among them
 * @param levelZeroAdded level-0 files the ingest snapshots added
 * @param levelZeroLive level-0 files live in the latest snapshot
 */
public record CompactionAudit(
    String table,
    Set<String> ingestCommitters,
    long compactionSnapshots,
    Map<Integer, Integer> highestLevels,
    long levelZeroAdded,
    long levelZeroLive) {

  /** Audits {@code table} as of its latest snapshot. */
  public static CompactionAudit of(FileStoreTable table) {
    List<Snapshot> snapshots;
    try {
      snapshots = new ArrayList<>(table.snapshotManager().safelyGetAllSnapshots());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the snapshots of " + table.fullName(), e);
    }
    Set<String> writers =
        snapshots.stream()
            .filter(s -> s.commitKind() == Snapshot.CommitKind.APPEND)
            .map(Snapshot::commitUser)
            .collect(Collectors.toCollection(java.util.TreeSet::new));
    long compactions =
        snapshots.stream().filter(s -> s.commitKind() == Snapshot.CommitKind.COMPACT).count();
    long levelZeroAdded =
        snapshots.stream()
            .filter(s -> s.commitKind() == Snapshot.CommitKind.APPEND)
            .mapToLong(s -> addedFiles(table, s))
            .sum();
    Map<Integer, Integer> highest = new TreeMap<>();
    long levelZeroLive = 0;
    if (!snapshots.isEmpty()) {
      for (ManifestEntry e : table.store().newScan().plan().files()) {
        DataFileMeta file = e.file();
        highest.merge(e.bucket(), file.level(), Math::max);
        if (file.level() == 0) {
          levelZeroLive++;
        }
      }
    }
    return new CompactionAudit(
        table.fullName(), writers, compactions, highest, levelZeroAdded, levelZeroLive);
  }

  /**
   * Every sign that the table was not compacted by exactly one of {@code tasks} tasks, one readable
   * line each, empty when there is none: fewer or more ingest committers than tasks (not every task
   * wrote it), no compaction snapshot, a bucket whose files are all at level 0, no fewer live
   * level-0 files than the ingest commits added, and a number of tasks other than one whose {@code
   * compactionsByTask} (task -> its {@code table-compactions-total}) is positive.
   */
  public List<String> problems(int tasks, Map<Integer, Long> compactionsByTask) {
    List<String> problems = new ArrayList<>();
    if (ingestCommitters.size() != tasks) {
      problems.add(
          table
              + ": ingest snapshots by "
              + ingestCommitters.size()
              + " committers "
              + ingestCommitters
              + ", expected one per task ("
              + tasks
              + ")");
    }
    if (compactionSnapshots == 0) {
      problems.add(table + ": no compaction snapshot");
    }
    if (highestLevels.isEmpty()) {
      problems.add(table + ": no live files");
    }
    highestLevels.forEach(
        (bucket, level) -> {
          if (level == 0) {
            problems.add(table + ": bucket " + bucket + " has level-0 files only");
          }
        });
    if (levelZeroLive >= levelZeroAdded) {
      problems.add(
          table
              + ": "
              + levelZeroLive
              + " live level-0 files of the "
              + levelZeroAdded
              + " ingest added: none compacted away");
    }
    List<Integer> compactedBy =
        compactionsByTask.entrySet().stream()
            .filter(e -> e.getValue() > 0)
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    if (compactedBy.size() != 1) {
      problems.add(
          table
              + ": compacted by "
              + (compactedBy.isEmpty() ? "no task" : "tasks " + compactedBy)
              + " (table-compactions-total per task: "
              + new TreeMap<>(compactionsByTask)
              + "), expected exactly one");
    }
    return problems;
  }

  private static long addedFiles(FileStoreTable table, Snapshot snapshot) {
    return table
        .store()
        .newScan()
        .withSnapshot(snapshot)
        .withKind(ScanMode.DELTA)
        .plan()
        .files(FileKind.ADD)
        .size();
  }
}
