package io.changelake.source.offset;

import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.ReaderPosition;
import io.changelake.lsm.changelog.RegisteredConsumer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How the buckets of one task's table resume, split into groups one changelog reader each can read:
 * buckets without a position start at {@code start.position}; buckets in the middle of a full-state
 * read go on with that snapshot's full state (one group per snapshot); the others resume their
 * changes. Offsets are per bucket, so this holds whichever task read a bucket before.
 *
 * <p>Where a bucket's position comes from, in order:
 *
 * <ol>
 *   <li>its own offset ({@link SourceOffsets#partition});
 *   <li>else the offset of an earlier version's bucket-set partition covering it ({@link
 *       SourceOffsets#legacyPartition}). That offset counts the changes of all the set's buckets
 *       together, so it cannot say where inside its snapshot each bucket stood: the bucket resumes
 *       at the start of that snapshot (or of its full state), exact when the offset stood at a
 *       snapshot's start and otherwise publishing at most that one snapshot's part again, once;
 *   <li>else, unless the start position is the full state, the highest snapshot of the connector's
 *       Paimon consumers that covered it: a bucket that never had a change to publish has no
 *       offset, but its readers' consumers moved on, and starting it from {@code latest} again
 *       would skip a change committed before the restart and not yet published. With the full state
 *       a bucket without offset reads the full state again, which holds such changes.
 * </ol>
 *
 * <p>A bucket's stored offset moves only with its own records, so a bucket without changes for a
 * while keeps an old one. The connector's Paimon consumers know better: each one's snapshot is a
 * floor for all of its buckets (everything before it is durable in Kafka), so a position is raised
 * to the highest floor among the consumers that covered the bucket — whatever bucket sets they had.
 */
public record RestorePlan(List<Group> groups) {

  /**
   * Buckets one reader resumes together.
   *
   * @param keys bucket keys ({@link ChangelogReader#ALL_BUCKETS} for a table read whole)
   * @param restored the position of every key, or empty for buckets starting at the start position
   */
  public record Group(Set<Integer> keys, Map<Integer, ReaderPosition> restored) {
    public Group {
      keys = Set.copyOf(new TreeSet<>(keys));
      restored = Map.copyOf(restored);
    }

    /** The bucket set to give the reader: empty (all) for a table read whole. */
    public Set<Integer> readerBuckets() {
      return keys.contains(ChangelogReader.ALL_BUCKETS) ? Set.of() : keys;
    }

    public boolean fresh() {
      return restored.isEmpty();
    }
  }

  /**
   * An offset an earlier version stored for a bucket set.
   *
   * @param buckets the set; empty for all buckets
   */
  public record LegacyOffset(Set<Integer> buckets, ReaderPosition position) {
    public LegacyOffset {
      buckets = Set.copyOf(buckets);
    }

    boolean covers(int key) {
      return buckets.isEmpty() || buckets.contains(key);
    }
  }

  public RestorePlan {
    groups = List.copyOf(groups);
  }

  /**
   * @param stored per bucket key, its stored offset (empty when none)
   * @param legacy offsets of earlier versions' bucket-set partitions of the table
   * @param consumers this connector's Paimon consumers on the table
   * @param startsWithFullState whether {@code start.position} is the full state
   */
  public static RestorePlan of(
      Map<Integer, Optional<ReaderPosition>> stored,
      Collection<LegacyOffset> legacy,
      List<RegisteredConsumer> consumers,
      boolean startsWithFullState) {
    Set<Integer> fresh = new TreeSet<>();
    Map<Integer, ReaderPosition> changes = new HashMap<>();
    Map<Long, Map<Integer, ReaderPosition>> fullStates = new TreeMap<>();
    stored.forEach(
        (key, offset) -> {
          Optional<ReaderPosition> found = offset.or(() -> legacyPosition(key, legacy));
          Optional<ReaderPosition> floor = floor(key, consumers);
          if (found.isEmpty() && (startsWithFullState || floor.isEmpty())) {
            fresh.add(key);
            return;
          }
          ReaderPosition position =
              found
                  .map(p -> floor.map(f -> ReaderPosition.later(p, f)).orElse(p))
                  .orElseGet(floor::get);
          if (position.fullState()) {
            fullStates
                .computeIfAbsent(position.snapshotId(), s -> new HashMap<>())
                .put(key, position);
          } else {
            changes.put(key, position);
          }
        });
    List<Group> groups = new ArrayList<>();
    if (!fresh.isEmpty()) {
      groups.add(new Group(fresh, Map.of()));
    }
    fullStates.values().forEach(positions -> groups.add(new Group(positions.keySet(), positions)));
    if (!changes.isEmpty()) {
      groups.add(new Group(changes.keySet(), changes));
    }
    return new RestorePlan(groups);
  }

  /** The latest legacy offset covering {@code key}, at the start of its snapshot (see above). */
  private static Optional<ReaderPosition> legacyPosition(int key, Collection<LegacyOffset> legacy) {
    return legacy.stream()
        .filter(offset -> offset.covers(key))
        .map(offset -> offset.position())
        .max(ReaderPosition.ORDER)
        .map(p -> new ReaderPosition(p.snapshotId(), 0, p.fullState()));
  }

  /** The highest snapshot start the consumers covering {@code key} guarantee as published. */
  private static Optional<ReaderPosition> floor(int key, List<RegisteredConsumer> consumers) {
    return consumers.stream()
        .filter(consumer -> consumer.covers(key))
        .map(consumer -> ReaderPosition.snapshotStart(consumer.nextSnapshot()))
        .max(ReaderPosition.ORDER);
  }
}
