package io.changelake.e2e.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.paimon.Snapshot;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ScanMode;

/**
 * What a table's snapshot list says about the commits that built it, to prove that none was lost:
 * the commit identifiers of every commit user, in snapshot order, and the data and changelog files
 * in storage that no snapshot ever added.
 *
 * <p>A snapshot lost to a racing committer leaves two traces: its commit identifier is missing from
 * its user's list, and the files it added stay in storage with no snapshot referencing them (until
 * orphan cleaning, hours later). Read it only while nothing expires snapshots: files added by
 * expired snapshots would look unreferenced too.
 *
 * @param table the table's full name, for messages
 * @param snapshots every snapshot found, by ascending id
 * @param unreferencedFiles data and changelog files in storage that no snapshot added
 */
public record SnapshotAudit(String table, List<Commit> snapshots, List<String> unreferencedFiles) {

  /** One snapshot: its id, who committed it and under which commit identifier. */
  public record Commit(long snapshotId, String user, long identifier) {}

  /**
   * Audits {@code table}, whose files are stored under {@code tableDirectory} on a local disk (for
   * S3, the directory where the test's object store keeps the table's objects).
   */
  public static SnapshotAudit of(FileStoreTable table, Path tableDirectory) {
    // storage first: a file written after this listing cannot be mistaken for an unreferenced one
    List<String> stored = storedDataFiles(tableDirectory);
    List<Snapshot> snapshots;
    try {
      snapshots = new ArrayList<>(table.snapshotManager().safelyGetAllSnapshots());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the snapshots of " + table.fullName(), e);
    }
    snapshots.sort(Comparator.comparingLong(Snapshot::id));
    List<Commit> commits = new ArrayList<>();
    Set<String> added = new HashSet<>();
    for (Snapshot snapshot : snapshots) {
      commits.add(new Commit(snapshot.id(), snapshot.commitUser(), snapshot.commitIdentifier()));
      addedFiles(table, snapshot, ScanMode.DELTA).forEach(added::add);
      if (snapshot.changelogManifestList() != null) {
        addedFiles(table, snapshot, ScanMode.CHANGELOG).forEach(added::add);
      }
    }
    List<String> unreferenced = stored.stream().filter(f -> !added.contains(f)).sorted().toList();
    return new SnapshotAudit(table.fullName(), List.copyOf(commits), unreferenced);
  }

  /**
   * Every trace of a lost snapshot, one readable line each, empty when there is none — by three
   * independent ledgers: snapshot ids with a hole (a snapshot file gone); a commit user's
   * identifiers 1..n with a hole (its snapshot replaced by a racer's of the same id, or removed); a
   * user holding fewer (or more) snapshots than the commits it saw succeed ({@code
   * reportedCommits}, user -> count, e.g. the sink's {@code table-commits-total}; users not in the
   * map are not counted); and data or changelog files in storage that no snapshot added (the files
   * of a lost snapshot, or of a commit Paimon dropped for its stale identifier).
   */
  public List<String> lostSnapshots(Map<String, Long> reportedCommits) {
    List<String> problems = new ArrayList<>();
    if (!missingSnapshotIds().isEmpty()) {
      problems.add(table + ": snapshot files missing: " + missingSnapshotIds());
    }
    for (String user : reportedCommits.keySet()) {
      List<Long> missing = missingIdentifiers(user);
      if (!missing.isEmpty()) {
        problems.add(table + ": commits of " + user + " missing: " + missing);
      }
      long reported = reportedCommits.get(user);
      if (snapshotsOf(user) != reported) {
        problems.add(
            table
                + ": "
                + user
                + " reports "
                + reported
                + " commits, the table holds "
                + snapshotsOf(user)
                + " snapshots of it");
      }
    }
    if (!unreferencedFiles.isEmpty()) {
      problems.add(table + ": files no snapshot added: " + unreferencedFiles);
    }
    return problems;
  }

  /**
   * The identifiers missing from {@code user}'s commits, between 1 and its highest: for a writer
   * that commits identifiers 1, 2, 3, ... and only when it has rows, each one is a lost snapshot.
   */
  public List<Long> missingIdentifiers(String user) {
    Set<Long> present = new HashSet<>(identifiersOf(user));
    long highest = present.stream().mapToLong(Long::longValue).max().orElse(0);
    List<Long> missing = new ArrayList<>();
    for (long id = 1; id <= highest; id++) {
      if (!present.contains(id)) {
        missing.add(id);
      }
    }
    return missing;
  }

  /** How many snapshots {@code user} committed. */
  public int snapshotsOf(String user) {
    return identifiersOf(user).size();
  }

  /** The commit identifiers of {@code user}'s snapshots, in snapshot order. */
  public List<Long> identifiersOf(String user) {
    return snapshots.stream().filter(c -> c.user().equals(user)).map(Commit::identifier).toList();
  }

  /** Ids missing between the first and the last snapshot found (a snapshot file gone). */
  public List<Long> missingSnapshotIds() {
    List<Long> missing = new ArrayList<>();
    for (int i = 1; i < snapshots.size(); i++) {
      for (long id = snapshots.get(i - 1).snapshotId() + 1;
          id < snapshots.get(i).snapshotId();
          id++) {
        missing.add(id);
      }
    }
    return missing;
  }

  /**
   * How often the committing user changes from one snapshot to the next: the evidence that several
   * committers took turns on the table, rather than one after the other.
   */
  public int userSwitches() {
    int switches = 0;
    for (int i = 1; i < snapshots.size(); i++) {
      if (!snapshots.get(i).user().equals(snapshots.get(i - 1).user())) {
        switches++;
      }
    }
    return switches;
  }

  private static Stream<String> addedFiles(FileStoreTable table, Snapshot snapshot, ScanMode mode) {
    return table
        .store()
        .newScan()
        .withSnapshot(snapshot)
        .withKind(mode)
        .plan()
        .files(FileKind.ADD)
        .stream()
        .map(ManifestEntry::file)
        .map(file -> file.fileName());
  }

  private static List<String> storedDataFiles(Path tableDirectory) {
    try (Stream<Path> files = Files.walk(tableDirectory)) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> f.getParent().getFileName().toString().startsWith("bucket-"))
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("data-") || n.startsWith("changelog-"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + tableDirectory, e);
    }
  }
}
