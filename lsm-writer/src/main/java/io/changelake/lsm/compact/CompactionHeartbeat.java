package io.changelake.lsm.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.table.FileStoreTable;

/**
 * When a table was last compacted and maintained successfully, and by whom: one small file, {@code
 * <table>/changelake-compaction/last-success}, rewritten after every successful round. Every task
 * can read it, so a task whose table's owner stopped compacting (a FAILED task keeps its ownership)
 * sees that and takes over. Paimon's orphan-file cleaner only looks into bucket, partition,
 * manifest, index and statistics directories, so it leaves this folder alone.
 */
public final class CompactionHeartbeat {
  /** Folder inside the table directory. */
  public static final String DIRECTORY = "changelake-compaction";

  private static final String FILE = "last-success";

  /** The last successful compaction: when (epoch ms) and by which compactor. */
  public record Beat(long timeMillis, String compactor) {}

  private CompactionHeartbeat() {}

  /** Records a successful round of {@code compactor} at {@code timeMillis}. */
  public static void record(FileStoreTable table, String compactor, long timeMillis) {
    Path file = file(table);
    try {
      // one line, since Paimon's readFileUtf8 drops line breaks
      table.fileIO().overwriteFileUtf8(file, timeMillis + ";" + compactor);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** The last successful round recorded, empty when none was (or the file is unreadable). */
  public static Optional<Beat> read(FileStoreTable table) {
    FileIO fileIO = table.fileIO();
    Path file = file(table);
    try {
      Optional<String> text = fileIO.readOverwrittenFileUtf8(file);
      if (text.isEmpty()) {
        return Optional.empty();
      }
      String line = text.get().trim();
      int semicolon = line.indexOf(';');
      if (semicolon <= 0) {
        return Optional.empty();
      }
      return Optional.of(
          new Beat(Long.parseLong(line.substring(0, semicolon)), line.substring(semicolon + 1)));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + ": " + e.getMessage(), e);
    } catch (NumberFormatException e) {
      // a torn or foreign file: as if none had been written, the next success rewrites it
      return Optional.empty();
    }
  }

  private static Path file(FileStoreTable table) {
    return new Path(new Path(table.location(), DIRECTORY), FILE);
  }
}
