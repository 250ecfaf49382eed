package io.changelake.lsm.write;

import io.changelake.lsm.commit.CommitResult;
import io.changelake.lsm.commit.SourcePartition;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/** Writes rows of one table across all its buckets and commits them with Kafka offsets. */
public interface TableWriter {

  /** The table as this writer sees it (its schema is the one rows must match). */
  FileStoreTable table();

  /** Writes one row; its {@link org.apache.paimon.types.RowKind} says insert, update or delete. */
  void write(InternalRow row);

  /**
   * Commits everything written since the last commit as one snapshot whose properties hold {@code
   * offsets} (the next offset to consume per partition). Retrying after a failure never adds files
   * twice.
   */
  CommitResult commit(Map<SourcePartition, Long> offsets);

  /**
   * Commits what is buffered, then reopens on the table's latest schema (after schema evolution).
   */
  CommitResult reopen(Map<SourcePartition, Long> offsets);

  /** True when rows were written since the last commit. */
  boolean hasUncommittedRows();
}
