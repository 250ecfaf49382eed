package io.changelake.lsm.compact;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.manifest.BucketEntry;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.utils.Pair;

/**
 * How many data files the table's buckets hold: what a reader of a bucket merges, and what
 * compaction exists to keep small.
 *
 * @param buckets partition-buckets counted (0 for a table without data files)
 * @param maxFiles files of the bucket with the most
 * @param totalFiles files over all buckets
 */
public record BucketFiles(int buckets, long maxFiles, long totalFiles) {
  public static final BucketFiles NONE = new BucketFiles(0, 0, 0);

  /** Files per bucket on average; 0 without buckets. */
  public double averageFiles() {
    return buckets == 0 ? 0 : (double) totalFiles / buckets;
  }

  /**
   * The files per bucket once a compaction round is committed: the round's bucket entries (read
   * from the manifests before it, to know what to compact) with the files it removed taken out and
   * the ones it wrote put in. Files that ingest writers commit meanwhile are not in it.
   */
  static BucketFiles afterCompaction(List<BucketEntry> before, List<CommitMessage> round) {
    Map<Pair<BinaryRow, Integer>, Long> files = new HashMap<>();
    for (BucketEntry entry : before) {
      files.merge(Pair.of(entry.partition(), entry.bucket()), entry.fileCount(), Long::sum);
    }
    for (CommitMessage message : round) {
      CommitMessageImpl change = (CommitMessageImpl) message;
      long delta =
          (long) change.compactIncrement().compactAfter().size()
              - change.compactIncrement().compactBefore().size()
              + change.newFilesIncrement().newFiles().size()
              - change.newFilesIncrement().deletedFiles().size();
      files.merge(Pair.of(change.partition(), change.bucket()), delta, Long::sum);
    }
    long max = 0;
    long total = 0;
    int buckets = 0;
    for (long count : files.values()) {
      if (count > 0) {
        buckets++;
        total += count;
        max = Math.max(max, count);
      }
    }
    return new BucketFiles(buckets, max, total);
  }
}
