package io.changelake.sink.task;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.StreamTableScan;

/**
 * Writes rows to a lookup table one commit each, as the sink's commits plus a compaction publish
 * them (prepared with {@code waitCompaction}, so each commit carries its changelog), and reads the
 * table's changelog back as a streaming reader sees it, e.g. {@code -U[1, a, b, 100, 7]}.
 */
final class LookupChangelog {
  private LookupChangelog() {}

  static List<String> writeAndRead(FileStoreTable table, Path spill, List<List<Object>> rows)
      throws Exception {
    try (IOManager io = IOManager.create(spill.toString());
        TableWriteImpl<?> write = table.newWrite("test").withIOManager(io);
        TableCommitImpl commit = table.newCommit("test")) {
      long identifier = 0;
      for (List<Object> values : rows) {
        Object[] fields = new Object[values.size()];
        for (int i = 0; i < fields.length; i++) {
          Object v = values.get(i);
          fields[i] = v instanceof String text ? BinaryString.fromString(text) : v;
        }
        write.write(GenericRow.of(fields));
        identifier++;
        commit.filterAndCommit(Map.of(identifier, write.prepareCommit(true, identifier)));
      }
    }
    FileStoreTable from =
        table.copy(
            Map.of(
                "scan.mode",
                "from-snapshot",
                "scan.snapshot-id",
                String.valueOf(table.snapshotManager().earliestSnapshotId())));
    ReadBuilder read = from.newReadBuilder();
    StreamTableScan scan = read.newStreamScan();
    long latest = table.snapshotManager().latestSnapshotId();
    List<String> changes = new ArrayList<>();
    while (scan.checkpoint() == null || scan.checkpoint() <= latest) {
      try (RecordReader<InternalRow> reader = read.newRead().createReader(scan.plan().splits())) {
        reader.forEachRemaining(
            row ->
                changes.add(
                    row.getRowKind().shortString()
                        + "["
                        + row.getInt(0)
                        + ", "
                        + row.getString(1)
                        + ", "
                        + row.getString(2)
                        + ", "
                        + row.getLong(3)
                        + ", "
                        + row.getLong(4)
                        + "]"));
      }
    }
    return changes;
  }
}
