package io.changelake.schema.evolution;

import java.util.List;
import org.apache.paimon.table.FileStoreTable;

/**
 * The schema changes applied to a table, read back from Paimon's own schema files (what the {@code
 * <table>$schemas} system table shows), so the history survives restarts and is the same for every
 * reader.
 */
public final class SchemaHistory {

  private SchemaHistory() {}

  /** Every schema version of {@code table}, oldest first, with the steps between versions. */
  public static List<SchemaVersion> list(FileStoreTable table) {
    throw new UnsupportedOperationException("TODO schema-evolution");
  }
}
