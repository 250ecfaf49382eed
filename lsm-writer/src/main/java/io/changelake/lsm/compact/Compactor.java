package io.changelake.lsm.compact;

import io.changelake.lsm.commit.DataFileBytes;
import io.changelake.lsm.fault.BrokenWriterException;
import io.changelake.lsm.fault.LakeException;
import io.changelake.lsm.table.ChangelogProducer;
import io.changelake.lsm.table.LakeTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.BucketEntry;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one compactor of a table. Ingest writers are write-only, so this is the only writer that
 * rewrites files and it never conflicts with them. Also expires snapshots and removes orphan files.
 *
 * <p>Run exactly one compactor per table (e.g. in one task chosen by table name): two compactors
 * rewriting the same buckets fail each other's commits. Each round uses a fresh Paimon writer,
 * because a writer's view of a bucket goes stale as soon as ingest writers add files.
 *
 * <p>For {@code changelog-producer=lookup} tables the compactor is what produces the changelog: its
 * rounds are prepared with {@code waitCompaction=true}, so every round's COMPACT snapshot carries
 * the {@code -U/+U} pairs of the level-0 files it merged. Changelog latency is therefore the
 * compaction interval. {@code changelog-producer=full-compaction} tables are compacted fully every
 * round, whose COMPACT snapshot carries the changes since the previous full compaction, merged per
 * key (cheaper changelog files, costlier compactions: every round rewrites the touched buckets).
 */
public final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);
  private final CompactionSettings settings;
  private final Path spillDirectory;
  private final LongSupplier clock;
  // runs once a round has chosen its schema and listed its buckets (tests put a racing ALTER here)
  private final Runnable roundPlanned;
  // when this compactor last cleaned each table's orphan files (full table name -> millis)
  private final Map<String, Long> orphansCleanedAt = new ConcurrentHashMap<>();

  public Compactor(CompactionSettings settings) {
    this(settings, defaultSpillDirectory());
  }

  /** A compactor spilling (and keeping lookup files) under {@code spillDirectory}. */
  public Compactor(CompactionSettings settings, Path spillDirectory) {
    this(settings, spillDirectory, System::currentTimeMillis, () -> {});
  }

  /**
   * With the wall clock {@code clock} (for tests of when orphan files are cleaned) and {@code
   * roundPlanned} run between a round's planning and its rewrite (for tests of what races it).
   */
  Compactor(
      CompactionSettings settings, Path spillDirectory, LongSupplier clock, Runnable roundPlanned) {
    this.settings = settings;
    this.spillDirectory = spillDirectory;
    this.clock = clock;
    this.roundPlanned = roundPlanned;
  }

  /**
   * Compacts the table (fully when {@code full}, and always for {@code
   * changelog-producer=full-compaction} tables) with a fresh writer and commits.
   */
  public CompactionResult compact(FileStoreTable table, boolean full) {
    // the latest schema's options merge the latest columns (a new sequence group, say)
    FileStoreTable compacting = LakeTables.onLatestSchema(table).copy(compactionOptions());
    // only a full compaction produces the changelog of a full-compaction table; Paimon's
    // full-compaction.delta-commits counts the commits of one writer, and this writer is fresh
    // every round, so it would never fire
    full = full || producesChangelogByFullCompaction(compacting);
    String user = settings.commitUser();
    long identifier =
        compacting
            .snapshotManager()
            .latestSnapshotOfUser(user)
            .map(snapshot -> snapshot.commitIdentifier() + 1)
            .orElse(1L);
    // append-only tables (sources without a key) are bucket-unaware: Paimon compacts those through
    // a dedicated coordinator, not per bucket; they only get expiry and orphan clean-up here
    List<BucketEntry> buckets =
        compacting.primaryKeys().isEmpty()
            ? List.of()
            : compacting.newSnapshotReader().bucketEntries();
    if (buckets.isEmpty()) {
      return new CompactionResult(identifier, OptionalLong.empty(), 0, 0, BucketFiles.NONE);
    }
    try {
      Files.createDirectories(spillDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the spill directory " + spillDirectory, e);
    }
    roundPlanned.run();
    try (IOManager ioManager = IOManager.create(spillDirectory.toString());
        TableWriteImpl<?> write = compacting.newWrite(user).withIOManager(ioManager);
        TableCommitImpl commit = compacting.newCommit(user)) {
      for (BucketEntry bucket : buckets) {
        write.compact(bucket.partition(), bucket.bucket(), full);
      }
      // waitCompaction: the round must finish (and, for lookup tables, produce its changelog)
      List<CommitMessage> messages = write.prepareCommit(true, identifier);
      long schemaId = compacting.schema().id();
      long rewrittenSchemaId = newestSchemaRewritten(messages);
      if (rewrittenSchemaId > schemaId) {
        // a writer added files of a newer schema after this round chose its schema: reading them
        // with the older one dropped the new columns (and would cut widened values), so nothing of
        // this round may land; the next round reads the latest schema
        commit.abort(messages);
        LOG.info(
            "Compaction round of table {} discarded: it rewrote files of schema {} with schema {}"
                + " (the table's schema changed during the round); the next round compacts with"
                + " the new schema",
            table.fullName(),
            rewrittenSchemaId,
            schemaId);
        return new CompactionResult(
            identifier,
            OptionalLong.empty(),
            buckets.size(),
            0,
            BucketFiles.afterCompaction(buckets, List.of()));
      }
      ManifestCommittable committable = new ManifestCommittable(identifier);
      messages.forEach(committable::addFileCommittable);
      commit.filterAndCommitMultiple(List.of(committable));
      OptionalLong snapshot = snapshotOf(compacting, identifier);
      return new CompactionResult(
          identifier,
          snapshot,
          buckets.size(),
          DataFileBytes.added(messages),
          // a round another compactor's commit beat leaves the files as they were
          BucketFiles.afterCompaction(buckets, snapshot.isPresent() ? messages : List.of()));
    } catch (Exception e) {
      throw LakeException.wrap(
          "Compacting table " + table.fullName() + " failed: " + e.getMessage(),
          e,
          BrokenWriterException::new);
    }
  }

  /** The newest schema among the files {@code messages} rewrite (-1 when they rewrite none). */
  private static long newestSchemaRewritten(List<CommitMessage> messages) {
    long newest = -1;
    for (CommitMessage message : messages) {
      for (DataFileMeta file : ((CommitMessageImpl) message).compactIncrement().compactBefore()) {
        newest = Math.max(newest, file.schemaId());
      }
    }
    return newest;
  }

  private static boolean producesChangelogByFullCompaction(FileStoreTable table) {
    return ChangelogProducer.of(table.options()) == ChangelogProducer.FULL_COMPACTION;
  }

  /**
   * Removes the consumers of changelog readers that are gone (past the table's {@code
   * consumer.expiration-time}), expires old snapshots and cleans orphan files per the settings.
   *
   * <p>Orphan files are cleaned at this compactor's first maintenance of a table and then at most
   * once per {@code orphanFileOlderThan}: a file only becomes one when it outlives that age, the
   * clean-up lists every file of the table (LIST requests on an object store), and Paimon's cleaner
   * logs a warning with a stack trace for each table folder it expects but finds missing.
   */
  public MaintenanceResult maintain(FileStoreTable table) {
    FileStoreTable maintained = LakeTables.onLatestSchema(table);
    Long before = maintained.snapshotManager().earliestSnapshotId();
    // consumers of readers that are gone (not refreshed within consumer.expiration-time) go first,
    // so they stop pinning snapshots. Paimon 1.3 did this on every commit; 1.4 skips it on commits
    // of write-only writers, and every ingest writer is write-only
    Duration consumerExpiry = CoreOptions.fromMap(maintained.options()).consumerExpireTime();
    if (consumerExpiry != null) {
      maintained.consumerManager().expire(LocalDateTime.now().minus(consumerExpiry));
    }
    // consumers registered by changelog readers hold back expiry of snapshots they still need
    maintained
        .newExpireSnapshots()
        .config(
            ExpireConfig.builder()
                .snapshotRetainMin(settings.snapshotsRetainMin())
                .snapshotRetainMax(settings.snapshotsRetainMax())
                .snapshotTimeRetain(settings.snapshotTimeRetained())
                .build())
        .expire();
    Long after = maintained.snapshotManager().earliestSnapshotId();
    long now = clock.getAsLong();
    Long cleanedAt = orphansCleanedAt.get(table.fullName());
    if (cleanedAt != null && now - cleanedAt < settings.orphanFileOlderThan().toMillis()) {
      return new MaintenanceResult(before == null ? 0 : before, after == null ? 0 : after, 0);
    }
    long olderThan = now - settings.orphanFileOlderThan().toMillis();
    long deleted;
    try {
      deleted =
          new LocalOrphanFilesClean(maintained, olderThan, false).clean().getDeletedFileCount();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cleaning orphan files of table " + table.fullName() + " failed: " + e.getMessage(), e);
    } catch (Exception e) {
      throw LakeException.wrap(
          "Cleaning orphan files of table " + table.fullName() + " failed: " + e.getMessage(),
          e,
          BrokenWriterException::new);
    }
    orphansCleanedAt.put(table.fullName(), now);
    return new MaintenanceResult(before == null ? 0 : before, after == null ? 0 : after, deleted);
  }

  /** Snapshot options for the compactor's commits, so its own automatic expiry matches ours. */
  private Map<String, String> compactionOptions() {
    return Map.of(
        CoreOptions.WRITE_ONLY.key(),
        "false",
        CoreOptions.SNAPSHOT_NUM_RETAINED_MIN.key(),
        Integer.toString(settings.snapshotsRetainMin()),
        CoreOptions.SNAPSHOT_NUM_RETAINED_MAX.key(),
        Integer.toString(settings.snapshotsRetainMax()),
        CoreOptions.SNAPSHOT_TIME_RETAINED.key(),
        settings.snapshotTimeRetained().toMillis() + " ms");
  }

  private OptionalLong snapshotOf(FileStoreTable table, long identifier) {
    Optional<Snapshot> latest = table.snapshotManager().latestSnapshotOfUser(settings.commitUser());
    return latest.isPresent() && latest.get().commitIdentifier() == identifier
        ? OptionalLong.of(latest.get().id())
        : OptionalLong.empty();
  }

  private static Path defaultSpillDirectory() {
    return Path.of(System.getProperty("java.io.tmpdir"), "changelake-compactor");
  }
}
