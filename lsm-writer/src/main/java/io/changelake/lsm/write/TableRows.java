package io.changelake.lsm.write;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.source.ReadBuilder;

/** Reads every row a {@link ReadBuilder} plans (a batch read of the latest snapshot). */
final class TableRows {
  private TableRows() {}

  /** What is done with each row; the row is reused by the reader: copy it to keep it. */
  @FunctionalInterface
  interface RowConsumer {
    void accept(InternalRow row) throws Exception;
  }

  static void forEach(ReadBuilder read, RowConsumer consumer) throws Exception {
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      RecordReader.RecordIterator<InternalRow> batch;
      while ((batch = reader.readBatch()) != null) {
        try {
          InternalRow row;
          while ((row = batch.next()) != null) {
            consumer.accept(row);
          }
        } finally {
          batch.releaseBatch();
        }
      }
    }
  }
}
