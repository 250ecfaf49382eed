package io.changelake.lsm.changelog;

import io.changelake.lsm.fault.LakeDataException;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.IncrementalSplit;
import org.apache.paimon.table.source.Split;

/**
 * Where a split's rows live: partition, bucket and the data files read. Paimon 1.4 split {@link
 * DataSplit} in two: stream scans still plan full states, delta and changelog files as {@code
 * DataSplit}s, but the changes of an overwrite snapshot of a primary-key table (read with {@code
 * streaming-read-overwrite=true}) and incremental diffs come as {@link IncrementalSplit}s, which
 * carry the before files that {@code DataSplit} held in 1.3. Positions are kept per bucket, so a
 * split whose bucket cannot be told fails loudly rather than being counted under the wrong bucket.
 *
 * @param partition the split's partition
 * @param bucket the split's bucket
 * @param files the files the split reads (before files first, for an incremental split)
 */
record SplitPlace(BinaryRow partition, int bucket, List<DataFileMeta> files) {

  /**
   * @param table full name of the table the split belongs to, for the error
   * @throws LakeDataException for a split of a type this build does not know: not a programming
   *     error of ours but a Paimon other than the one built with on the plugin path, which a retry
   *     cannot change
   */
  static SplitPlace of(Split split, String table) {
    if (split instanceof DataSplit data) {
      return new SplitPlace(data.partition(), data.bucket(), data.dataFiles());
    }
    if (split instanceof IncrementalSplit incremental) {
      List<DataFileMeta> files = incremental.afterFiles();
      if (!incremental.beforeFiles().isEmpty()) {
        files = new ArrayList<>(incremental.beforeFiles());
        files.addAll(incremental.afterFiles());
      }
      return new SplitPlace(incremental.partition(), incremental.bucket(), files);
    }
    throw new LakeDataException(
        "Paimon planned a split of type "
            + split.getClass().getName()
            + " for table "
            + table
            + ", which the changelog reader does not know how to place in a bucket; this build of"
            + " Changelake supports the Paimon version it was built with only (see lsm-writer's"
            + " README): install the plugin archive with the Paimon jars it ships",
        table,
        null,
        null);
  }
}
