package io.changelake.lsm.commit;

import io.changelake.lsm.fault.BrokenWriterException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.paimon.Snapshot;
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
 *
 * <p>The file also says whether its user's writer is <em>open</em> on the table: marked open when
 * the writer opens (before its first commit) and closed when it closes with nothing pending. A
 * snapshot can land without its copy (a crash between the commit and the file write) only while the
 * user is open, and only above the newest snapshot the copy recorded; a writer opening on the table
 * again first copies its user's newest snapshot if the copy lacks it. {@link CommittedOffsets}
 * therefore reads snapshots only down to the copies of the open users.
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

  /**
   * What one user's file holds: its entries, whether its writer is open on the table, and the
   * snapshot up to which the user's writer found every snapshot of the user copied when it opened.
   */
  public record Copy(Map<SourcePartition, Entry> entries, boolean open, long checkedAtOpen) {
    /** The newest snapshot the copy recorded, 0 when none. */
    public long recordedThrough() {
      return entries.values().stream().mapToLong(Entry::snapshotId).max().orElse(0);
    }

    /** No snapshot of the user up to this one is missing from the copy. */
    public long completeThrough() {
      return Math.max(recordedThrough(), checkedAtOpen);
    }
  }

  private static final String OPEN = "@open";
  private static final String CLOSED = "@closed";

  private final FileIO fileIO;
  private final Path directory;

  public OffsetFallbackStore(FileStoreTable table) {
    this.fileIO = table.fileIO();
    this.directory = new Path(table.location(), DIRECTORY);
  }

  /**
   * Merges {@code offsets}, committed in {@code snapshotId}, into the user's file, which stays (or
   * becomes) open.
   */
  public void record(String commitUser, long snapshotId, Map<SourcePartition, Long> offsets) {
    record(commitUser, snapshotId, SourceProgress.of(offsets));
  }

  /** Like {@link #record(String, long, Map)}, with the partitions' marks. */
  public void record(String commitUser, long snapshotId, SourceProgress progress) {
    if (progress.offsets().isEmpty()) {
      return;
    }
    Copy read = copy(commitUser);
    Map<SourcePartition, Entry> merged = new HashMap<>(read.entries());
    progress
        .offsets()
        .forEach(
            (partition, offset) ->
                merged.put(
                    partition,
                    new Entry(
                        offset, snapshotId, Optional.ofNullable(progress.marks().get(partition)))));
    write(commitUser, new Copy(merged, true, read.checkedAtOpen()));
  }

  /**
   * Marks the user's writer open on the table, before it commits: from now on a reader must look at
   * this user's snapshots above what the copy holds. {@code latestOfUser} is the user's newest
   * snapshot, looked up after the table's newest snapshot id {@code tableLatest} was read: it is
   * copied when the copy lacks it (its writer died before copying it), so the copy is complete
   * through {@code tableLatest}.
   */
  public void markOpen(String commitUser, long tableLatest, Optional<Snapshot> latestOfUser) {
    Copy copy = copy(commitUser);
    Map<SourcePartition, Entry> entries = new HashMap<>(copy.entries());
    if (latestOfUser.isPresent() && latestOfUser.get().id() > copy.recordedThrough()) {
      long id = latestOfUser.get().id();
      Map<SourcePartition, String> marks =
          OffsetProperties.decodeMarks(latestOfUser.get().properties());
      OffsetProperties.decode(latestOfUser.get().properties())
          .forEach(
              (partition, offset) ->
                  entries.put(
                      partition, new Entry(offset, id, Optional.ofNullable(marks.get(partition)))));
    }
    Copy marked = new Copy(entries, true, Math.max(copy.checkedAtOpen(), tableLatest));
    if (!marked.equals(copy)) {
      write(commitUser, marked);
    }
  }

  /**
   * Marks the user's writer closed: every snapshot it committed is in the copy, so readers need not
   * look at its snapshots. Only for a writer with nothing pending.
   */
  public void markClosed(String commitUser) {
    Copy copy = copy(commitUser);
    if (copy.open()) {
      write(commitUser, new Copy(copy.entries(), false, copy.checkedAtOpen()));
    }
  }

  private void write(String commitUser, Copy copy) {
    // one line, since Paimon's readFileUtf8 drops line breaks; Kafka topic names never hold ';',
    // '=', '@' or '#', and marks are URL-encoded
    StringJoiner text = new StringJoiner(";");
    text.add((copy.open() ? OPEN : CLOSED) + ":" + copy.checkedAtOpen());
    copy.entries()
        .forEach(
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
    return copy(commitUser).entries();
  }

  /**
   * The file of one commit user. A file without a state (written before the state existed) counts
   * as open: its user may have committed snapshots it lacks.
   */
  public Copy copy(String commitUser) {
    Path file = file(commitUser);
    try {
      Optional<String> text = fileIO.readOverwrittenFileUtf8(file);
      if (text.isEmpty()) {
        return new Copy(Map.of(), false, 0);
      }
      Map<SourcePartition, Entry> entries = new HashMap<>();
      boolean open = true;
      long checked = 0;
      for (String item : text.get().trim().split(";")) {
        if (item.isEmpty()) {
          continue;
        }
        if (item.startsWith(OPEN) || item.startsWith(CLOSED)) {
          open = item.startsWith(OPEN);
          int colon = item.indexOf(':');
          checked = colon < 0 ? 0 : Long.parseLong(item.substring(colon + 1));
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
          throw new BrokenWriterException(
              "Malformed entry '" + item + "' in the offset copy " + file + "; delete the file");
        }
        entries.put(
            OffsetProperties.partition(item.substring(0, equals)),
            new Entry(
                Long.parseLong(item.substring(equals + 1, at)),
                Long.parseLong(item.substring(at + 1)),
                mark));
      }
      return new Copy(entries, open, checked);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the offset copy " + file + ": " + e.getMessage(), e);
    }
  }

  /** Commit users with a file, whose name starts with {@code prefix}. */
  public List<String> users(String prefix) {
    return users(user -> user.startsWith(prefix));
  }

  /** Commit users with a file that {@code which} accepts. */
  public List<String> users(Predicate<String> which) {
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
          if (which.test(user)) {
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
    return newest(copies(user -> user.startsWith(prefix)).values());
  }

  /** The files of every user {@code which} accepts. */
  public Map<String, Copy> copies(Predicate<String> which) {
    Map<String, Copy> copies = new HashMap<>();
    for (String user : users(which)) {
      copies.put(user, copy(user));
    }
    return copies;
  }

  /** Per partition, the entry with the newest snapshot among {@code copies}. */
  public static Map<SourcePartition, Entry> newest(Collection<Copy> copies) {
    Map<SourcePartition, Entry> newest = new TreeMap<>(OffsetFallbackStore::compare);
    for (Copy copy : copies) {
      copy.entries()
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
