package io.changelake.lsm.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.table.FileStoreTable;

/**
 * The copy of committed offsets that survives snapshot expiry: one small file per commit user in
 * {@code <table>/changelake-offsets/}, holding for every partition the user ever committed the
 * offset and the snapshot that carried it. It is rewritten after every commit that created a
 * snapshot. The snapshot stays the source of truth; this file only answers once the snapshot is
 * gone, and the snapshot id lets a reader tell which of two users committed a partition last.
 */
public final class OffsetFallbackStore {
  /** Folder inside the table directory; Paimon's orphan-file cleaner does not look into it. */
  public static final String DIRECTORY = "changelake-offsets";

  private static final String SUFFIX = ".properties";

  /** An offset, the snapshot that committed it, and the partition's mark committed with it. */
  public record Entry(long offset, long snapshotId, Optional<String> mark) {
    public Entry(long offset, long snapshotId) {
      this(offset, snapshotId, Optional.empty());
    }
  }

  private final FileIO fileIO;
  private final Path directory;

  public OffsetFallbackStore(FileStoreTable table) {
    this.fileIO = table.fileIO();
    this.directory = new Path(table.location(), DIRECTORY);
  }

  /** Merges {@code offsets}, committed in {@code snapshotId}, into the user's file. */
  public void record(String commitUser, long snapshotId, Map<SourcePartition, Long> offsets) {
    record(commitUser, snapshotId, SourceProgress.of(offsets));
  }

  /** Merges {@code progress}, committed in {@code snapshotId}, into the user's file. */
  public void record(String commitUser, long snapshotId, SourceProgress progress) {
    if (progress.offsets().isEmpty()) {
      return;
    }
    Map<SourcePartition, Entry> merged = new HashMap<>(read(commitUser));
    progress
        .offsets()
        .forEach(
            (partition, offset) ->
                merged.put(
                    partition,
                    new Entry(
                        offset, snapshotId, Optional.ofNullable(progress.marks().get(partition)))));
    // one line, since Paimon's readFileUtf8 drops line breaks; Kafka topic names never hold ';',
    // '=', '@' or '#', and marks are URL-encoded
    StringJoiner text = new StringJoiner(";");
    merged.forEach(
        (partition, entry) ->
            text.add(
                OffsetProperties.key(partition)
                    + "="
                    + entry.offset()
                    + "@"
                    + entry.snapshotId()
                    + entry
                        .mark()
                        .map(mark -> "#" + URLEncoder.encode(mark, StandardCharsets.UTF_8))
                        .orElse("")));
    try {
      fileIO.overwriteFileUtf8(file(commitUser), text.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the offset copy " + file(commitUser) + ": " + e.getMessage(), e);
    }
  }

  /** The entries of one commit user. */
  public Map<SourcePartition, Entry> read(String commitUser) {
    Path file = file(commitUser);
    try {
      Optional<String> text = fileIO.readOverwrittenFileUtf8(file);
      if (text.isEmpty()) {
        return Map.of();
      }
      Map<SourcePartition, Entry> entries = new HashMap<>();
      for (String item : text.get().trim().split(";")) {
        if (item.isEmpty()) {
          continue;
        }
        Optional<String> mark = Optional.empty();
        int hash = item.indexOf('#');
        if (hash >= 0) {
          mark = Optional.of(URLDecoder.decode(item.substring(hash + 1), StandardCharsets.UTF_8));
          item = item.substring(0, hash);
        }
        int equals = item.lastIndexOf('=');
        int at = item.lastIndexOf('@');
        if (equals < 0 || at < equals) {
          throw new IllegalStateException(
              "Malformed entry '" + item + "' in the offset copy " + file + "; delete the file");
        }
        entries.put(
            OffsetProperties.partition(item.substring(0, equals)),
            new Entry(
                Long.parseLong(item.substring(equals + 1, at)),
                Long.parseLong(item.substring(at + 1)),
                mark));
      }
      return entries;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the offset copy " + file + ": " + e.getMessage(), e);
    }
  }

  /** Commit users with a file, whose name starts with {@code prefix}. */
  public List<String> users(String prefix) {
    List<String> users = new ArrayList<>();
    try {
      if (!fileIO.exists(directory)) {
        return users;
      }
      for (FileStatus status : fileIO.listStatus(directory)) {
        String name = status.getPath().getName();
        if (name.endsWith(SUFFIX)) {
          String user =
              URLDecoder.decode(
                  name.substring(0, name.length() - SUFFIX.length()), StandardCharsets.UTF_8);
          if (user.startsWith(prefix)) {
            users.add(user);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + directory + ": " + e.getMessage(), e);
    }
    return users;
  }

  /** Per partition, the entry with the newest snapshot among all users with {@code prefix}. */
  public Map<SourcePartition, Entry> newest(String prefix) {
    Map<SourcePartition, Entry> newest = new TreeMap<>(OffsetFallbackStore::compare);
    for (String user : users(prefix)) {
      read(user)
          .forEach(
              (partition, entry) ->
                  newest.merge(
                      partition, entry, (a, b) -> a.snapshotId() >= b.snapshotId() ? a : b));
    }
    return newest;
  }

  private static int compare(SourcePartition a, SourcePartition b) {
    int byTopic = a.topic().compareTo(b.topic());
    return byTopic != 0 ? byTopic : Integer.compare(a.partition(), b.partition());
  }

  private Path file(String commitUser) {
    return new Path(directory, URLEncoder.encode(commitUser, StandardCharsets.UTF_8) + SUFFIX);
  }
}
