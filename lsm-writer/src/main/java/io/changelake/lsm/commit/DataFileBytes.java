package io.changelake.lsm.commit;

import java.util.List;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

/**
 * The bytes of the files a commit adds to a table, read from its commit messages (each file's
 * {@link DataFileMeta#fileSize()}, which Paimon records when it closes the file): no file is listed
 * or opened to count them.
 */
public final class DataFileBytes {
  private DataFileBytes() {}

  /**
   * Data and changelog files written for {@code messages}: new files of an ingest commit, the files
   * a compaction produced. Files a compaction removed are not subtracted: this is what was written,
   * not how the table grew.
   */
  public static long added(List<CommitMessage> messages) {
    long bytes = 0;
    for (CommitMessage message : messages) {
      CommitMessageImpl files = (CommitMessageImpl) message;
      bytes += sum(files.newFilesIncrement().newFiles());
      bytes += sum(files.newFilesIncrement().changelogFiles());
      bytes += sum(files.compactIncrement().compactAfter());
      bytes += sum(files.compactIncrement().changelogFiles());
    }
    return bytes;
  }

  private static long sum(List<DataFileMeta> files) {
    long bytes = 0;
    for (DataFileMeta file : files) {
      bytes += file.fileSize();
    }
    return bytes;
  }
}
