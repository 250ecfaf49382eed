package io.changelake.lsm.compact;

import org.apache.paimon.table.FileStoreTable;

/**
 * The one compactor of a table. Ingest writers are write-only, so this is the only writer that
 * rewrites files and it never conflicts with them. Also expires snapshots and removes orphan files.
 */
public final class Compactor {

  public Compactor(CompactionSettings settings) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  /** Compacts the table (fully when {@code full}) with a fresh writer and commits. */
  public void compact(FileStoreTable table, boolean full) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }

  /** Expires old snapshots and cleans orphan files per the settings. */
  public void maintain(FileStoreTable table) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }
}
