package io.changelake.lsm.commit;

import java.util.Map;
import org.apache.paimon.table.FileStoreTable;

/** Reads back the Kafka offsets that commits stored in snapshot properties. */
public final class CommittedOffsets {
  private CommittedOffsets() {}

  /**
   * The next offset to consume per partition, taken from the latest snapshots of every commit user
   * whose name starts with {@code commitUserPrefix} (partitions move between tasks, so the newest
   * offset of a partition may sit in another task's snapshot). Falls back to the copy kept outside
   * snapshots when those have expired.
   */
  public static Map<SourcePartition, Long> read(FileStoreTable table, String commitUserPrefix) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }
}
