package io.changelake.source.assign;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.catalog.Identifier;
import org.junit.jupiter.api.Test;

class TaskAssignerTest {
  private static final Identifier A = Identifier.create("shop", "a");
  private static final Identifier B = Identifier.create("shop", "b");
  private static final Identifier C = Identifier.create("shop", "c");

  private static Map<Identifier, Integer> tables(Object... nameAndBuckets) {
    Map<Identifier, Integer> tables =
        new TreeMap<>((x, y) -> x.getFullName().compareTo(y.getFullName()));
    for (int i = 0; i < nameAndBuckets.length; i += 2) {
      tables.put((Identifier) nameAndBuckets[i], (Integer) nameAndBuckets[i + 1]);
    }
    return tables;
  }

  @Test
  void wholeTablesWhenThereAreAtLeastAsManyTablesAsTasks() {
    List<List<TableAssignment>> tasks = TaskAssigner.assign(tables(A, 4, B, 4, C, 2), 2);
    assertThat(tasks)
        .containsExactly(
            List.of(
                new TableAssignment(A, BucketSet.of(java.util.Set.of(0, 1, 2, 3))),
                new TableAssignment(C, BucketSet.of(java.util.Set.of(0, 1)))),
            List.of(new TableAssignment(B, BucketSet.of(java.util.Set.of(0, 1, 2, 3)))));
  }

  @Test
  void bucketsAreSpreadWhenTasksOutnumberTables() {
    List<List<TableAssignment>> tasks = TaskAssigner.assign(tables(A, 4), 2);
    assertThat(tasks)
        .containsExactly(
            List.of(new TableAssignment(A, BucketSet.of(java.util.Set.of(0, 2)))),
            List.of(new TableAssignment(A, BucketSet.of(java.util.Set.of(1, 3)))));
  }

  @Test
  void neverMoreTasksThanBucketsAndDynamicBucketTablesStayWhole() {
    List<List<TableAssignment>> tasks = TaskAssigner.assign(tables(A, 2, B, -1), 8);
    assertThat(tasks)
        .containsExactly(
            List.of(new TableAssignment(A, BucketSet.of(java.util.Set.of(0)))),
            List.of(new TableAssignment(A, BucketSet.of(java.util.Set.of(1)))),
            List.of(new TableAssignment(B, BucketSet.all())));
  }

  @Test
  void aBucketIsNamedTheSameWhicheverSplitReadsIt() {
    // one task reads every bucket, two tasks read two each: the buckets are listed either way,
    // so each keeps its source partition (and offset) across the change of tasks.max
    assertThat(TaskAssigner.assign(tables(A, 2), 1))
        .containsExactly(List.of(new TableAssignment(A, BucketSet.of(java.util.Set.of(0, 1)))));
    assertThat(TaskAssigner.assign(tables(A, 2), 2))
        .containsExactly(
            List.of(new TableAssignment(A, BucketSet.of(java.util.Set.of(0)))),
            List.of(new TableAssignment(A, BucketSet.of(java.util.Set.of(1)))));
  }

  @Test
  void noTablesNoTasks() {
    assertThat(TaskAssigner.assign(tables(), 3)).isEmpty();
  }

  @Test
  void assignmentsSurviveTheTaskConfigRoundTrip() {
    List<TableAssignment> assignments =
        List.of(
            new TableAssignment(A, BucketSet.all()),
            new TableAssignment(
                Identifier.create("my_db", "t.x"), BucketSet.of(java.util.Set.of(1, 3))));
    assertThat(TableAssignment.decode(TableAssignment.encode(assignments))).isEqualTo(assignments);
  }
}
