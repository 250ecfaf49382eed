package io.changelake.lsm.write;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;

/**
 * The writers of one task, one per table, sharing one memory budget and one spill directory. Ingest
 * writers are write-only; compaction is left to {@link io.changelake.lsm.compact.Compactor}.
 */
public final class WriterPool implements AutoCloseable {

  public WriterPool(Catalog catalog, WriterSettings settings) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  /** The writer of {@code table}, opened on first use (on the table's latest schema). */
  public TableWriter writer(Identifier table) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  /** Closes writers idle longer than the timeout that hold no uncommitted data. */
  public void closeIdle() {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  /** Bytes currently buffered across all tables, for size-triggered commits. */
  public long bufferedBytes() {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  @Override
  public void close() {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }
}
