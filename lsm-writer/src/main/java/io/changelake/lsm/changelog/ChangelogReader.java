package io.changelake.lsm.changelog;

import java.util.Optional;
import java.util.Set;
import org.apache.paimon.table.FileStoreTable;

/**
 * Streams a table's changes, snapshot by snapshot, for a subset of its buckets. Registers a Paimon
 * consumer so snapshots it still needs are not expired, and fails with {@link
 * PositionExpiredException} — never an endless empty stream — when its position has expired.
 */
public final class ChangelogReader implements AutoCloseable {

  /**
   * @param table the table
   * @param consumerId Paimon consumer id (stable per connector and table)
   * @param buckets the buckets this reader owns; empty for all
   * @param start where to start when {@code restored} is empty
   * @param restored a checkpoint to resume from
   * @param maxBatchSize most changes per batch
   */
  public ChangelogReader(
      FileStoreTable table,
      String consumerId,
      Set<Integer> buckets,
      StartPosition start,
      Optional<ReaderPosition> restored,
      int maxBatchSize) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  /** The next batch, or empty when no new snapshot is committed yet. */
  public Optional<ChangeBatch> poll() {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  /** Records that everything before {@code position} is durable downstream. */
  public void checkpoint(ReaderPosition position) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  @Override
  public void close() {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }
}
