package io.changelake.source.offset;

import io.changelake.lsm.changelog.ChangelogReader;
import io.changelake.lsm.changelog.RegisteredConsumer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Which of a connector's Paimon consumers on a table no reader uses any more. A consumer nobody
 * advances pins every snapshot from its position on, so old bucket sets (after a new {@code
 * tasks.max} or a new table) must go — but only once the readers that took their buckets over have
 * read their floors ({@link RestorePlan}).
 */
public final class ConsumerHygiene {
  private ConsumerHygiene() {}

  /**
   * Consumers a task may remove once its readers are registered: those of bucket sets within the
   * task's own buckets that none of its readers registered.
   *
   * @param ours the connector's consumers on the table, read before the readers were created
   * @param keys the task's bucket keys of the table ({@link ChangelogReader#ALL_BUCKETS}: all)
   * @param live the ids the task's readers registered
   */
  public static List<RegisteredConsumer> replaced(
      Collection<RegisteredConsumer> ours, Set<Integer> keys, Set<String> live) {
    boolean whole = keys.contains(ChangelogReader.ALL_BUCKETS);
    List<RegisteredConsumer> stale = new ArrayList<>();
    for (RegisteredConsumer consumer : ours) {
      boolean within =
          whole || (!consumer.buckets().isEmpty() && keys.containsAll(consumer.buckets()));
      if (within && !live.contains(consumer.id())) {
        stale.add(consumer);
      }
    }
    return stale;
  }

  /**
   * Consumers the connector may remove: bucket sets that span several of today's task assignments
   * (no single task removes them), once every one of their buckets is covered by a consumer within
   * one of today's assignments.
   *
   * @param ours the connector's consumers on the table
   * @param assigned the bucket sets the tasks read today (fixed-bucket tables only)
   */
  public static List<RegisteredConsumer> spanning(
      Collection<RegisteredConsumer> ours, Collection<Set<Integer>> assigned) {
    List<RegisteredConsumer> current = new ArrayList<>();
    List<RegisteredConsumer> old = new ArrayList<>();
    for (RegisteredConsumer consumer : ours) {
      boolean within =
          !consumer.buckets().isEmpty()
              && assigned.stream().anyMatch(set -> set.containsAll(consumer.buckets()));
      (within ? current : old).add(consumer);
    }
    Set<Integer> allAssigned =
        assigned.stream().flatMap(Set::stream).collect(java.util.stream.Collectors.toSet());
    List<RegisteredConsumer> removable = new ArrayList<>();
    for (RegisteredConsumer consumer : old) {
      Set<Integer> buckets = consumer.buckets().isEmpty() ? allAssigned : consumer.buckets();
      boolean taken = buckets.stream().allMatch(b -> current.stream().anyMatch(c -> c.covers(b)));
      if (taken) {
        removable.add(consumer);
      }
    }
    return removable;
  }
}
