package io.changelake.lsm.table;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.table.FileStoreTable;

/** Creates and opens primary-key tables. */
public final class LakeTables {
  private LakeTables() {}

  /**
   * Creates the table if it does not exist, else opens it as it is. Safe when several tasks create
   * the same table at once.
   */
  public static FileStoreTable createOrOpen(Catalog catalog, TableSpec spec) {
    throw new UnsupportedOperationException("TODO lsm-writer");
  }
}
