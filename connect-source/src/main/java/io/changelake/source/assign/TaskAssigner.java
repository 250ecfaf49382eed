package io.changelake.source.assign;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.paimon.catalog.Identifier;

/**
 * Splits tables over tasks. With at least as many tables as tasks each task reads whole tables (a
 * snapshot then stays one Kafka transaction); with fewer tables the buckets of fixed-bucket tables
 * are spread too. All changes of one key live in one bucket, so per-key order holds either way.
 * Buckets of fixed-bucket tables are always listed, so a bucket's source partition (and offset) is
 * the same whatever the split; only tables whose buckets are not fixed are read as {@code all}.
 */
public final class TaskAssigner {
  private TaskAssigner() {}

  /**
   * @param tables the tables with their fixed bucket count ({@code -1} or less for dynamic-bucket
   *     tables, which cannot be split)
   * @param maxTasks Connect's tasks.max
   * @return one list per task, none of them empty
   */
  public static List<List<TableAssignment>> assign(Map<Identifier, Integer> tables, int maxTasks) {
    List<Identifier> names = new ArrayList<>(tables.keySet());
    names.sort(Comparator.comparing(Identifier::getFullName));
    List<Unit> units = new ArrayList<>();
    boolean splitBuckets = names.size() < maxTasks;
    for (Identifier name : names) {
      int buckets = tables.get(name);
      if (splitBuckets && buckets > 1) {
        for (int bucket = 0; bucket < buckets; bucket++) {
          units.add(new Unit(name, bucket));
        }
      } else {
        units.add(new Unit(name, -1));
      }
    }
    int taskCount = Math.min(maxTasks, units.size());
    List<Map<Identifier, TreeSet<Integer>>> perTask = new ArrayList<>();
    for (int i = 0; i < taskCount; i++) {
      perTask.add(new LinkedHashMap<>());
    }
    for (int i = 0; i < units.size(); i++) {
      Unit unit = units.get(i);
      TreeSet<Integer> buckets =
          perTask.get(i % taskCount).computeIfAbsent(unit.table(), t -> new TreeSet<>());
      if (unit.bucket() >= 0) {
        buckets.add(unit.bucket());
      }
    }
    List<List<TableAssignment>> result = new ArrayList<>();
    for (Map<Identifier, TreeSet<Integer>> task : perTask) {
      List<TableAssignment> assignments = new ArrayList<>();
      task.forEach(
          (table, buckets) -> {
            int count = tables.get(table);
            if (count < 1) {
              assignments.add(new TableAssignment(table, BucketSet.all()));
            } else {
              // fixed buckets are always named: positions are kept per bucket, whichever task
              // reads it, so the same bucket has the same source partition under any split
              TreeSet<Integer> named = new TreeSet<>(buckets);
              if (named.isEmpty()) {
                for (int bucket = 0; bucket < count; bucket++) {
                  named.add(bucket);
                }
              }
              assignments.add(new TableAssignment(table, BucketSet.of(named)));
            }
          });
      result.add(assignments);
    }
    return result;
  }

  private record Unit(Identifier table, int bucket) {}
}
