package io.changelake.e2e.harness;

import static org.apache.paimon.types.RowKind.DELETE;
import static org.apache.paimon.types.RowKind.INSERT;
import static org.apache.paimon.types.RowKind.UPDATE_AFTER;
import static org.apache.paimon.types.RowKind.UPDATE_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;

import io.changelake.e2e.compare.LakeChangelog.Change;
import io.changelake.e2e.compare.VersionedChangelog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.Test;

/**
 * Scenario 6's order check ({@link VersionedChangelog}) on crafted changelogs: each way a broken
 * per-key order shows in a changelog (an older version winning after a move, a row mixing two
 * versions, a {@code -U} that is not the last state, the same change published twice) is reported,
 * naming the key and the rows; an ordered changelog, with several updates merged into one step,
 * passes.
 */
class VersionedChangelogTest {

  @Test
  void anOrderedChangelogPassesAndCountsItsSteps() {
    List<Change> changes = new ArrayList<>();
    changes.add(change(INSERT, 1, 0, "0"));
    changes.add(change(INSERT, 2, 0, "0"));
    pair(changes, 1, 0, "0", 1, "0,1");
    // two updates inside one commit: one step from 1 to 3
    pair(changes, 1, 1, "0,1", 3, "0,1,2,3");
    pair(changes, 2, 0, "0", 3, "0,1,2,3");

    VersionedChangelog.Check check = check(changes);

    assertThat(check.problems()).isEmpty();
    assertThat(check.steps()).containsEntry(1, 2).containsEntry(2, 1);
    assertThat(check.last().get(1)).containsEntry("v", 3L).containsEntry("history", "0,1,2,3");
  }

  @Test
  void aKeyWhoseFirstCommitHeldUpdatesStartsWithAnInsertOfThatStateAndAMixedOneIsReported() {
    List<Change> changes = new ArrayList<>();
    // inserted and updated twice before the sink's first commit: the changelog starts at version 2
    changes.add(change(INSERT, 1, 2, "0,1,2"));
    pair(changes, 1, 2, "0,1,2", 3, "0,1,2,3");
    // an insert whose history skips a version is no state the database had
    changes.add(change(INSERT, 2, 3, "0,3"));

    VersionedChangelog.Check check = check(changes);

    assertThat(check.problems()).containsExactly("key 2: +I {id=2, v=3, history=0,3} after null");
    assertThat(check.steps()).containsEntry(1, 1);
  }

  @Test
  void anOlderVersionWinningAfterAMoveIsReported() {
    List<Change> changes = new ArrayList<>();
    changes.add(change(INSERT, 1, 0, "0"));
    pair(changes, 1, 0, "0", 5, "0,1,2,3,4,5");
    // a moved task's stale writer wins: the key goes back to version 4, then forward again
    pair(changes, 1, 5, "0,1,2,3,4,5", 4, "0,1,2,3,4");
    pair(changes, 1, 4, "0,1,2,3,4", 6, "0,1,2,3,4,5,6");

    assertThat(check(changes).problems())
        .containsExactly(
            "key 1: +U {id=1, v=4, history=0,1,2,3,4} does not follow {id=1, v=5,"
                + " history=0,1,2,3,4,5}");
  }

  @Test
  void aRowMixingColumnsOfTwoVersionsIsReported() {
    List<Change> changes = new ArrayList<>();
    changes.add(change(INSERT, 1, 0, "0"));
    pair(changes, 1, 0, "0", 1, "0,1");
    // v of version 3 with the history of version 2, or a history that skips an update
    pair(changes, 1, 1, "0,1", 3, "0,1,2");
    pair(changes, 1, 3, "0,1,2", 4, "0,1,2,4");

    assertThat(check(changes).problems())
        .containsExactly(
            "key 1: +U {id=1, v=3, history=0,1,2} is no state the database had (its history must"
                + " be 0,1,2,3)",
            "key 1: +U {id=1, v=4, history=0,1,2,4} is no state the database had (its history"
                + " must be 0,1,2,3,4)");
  }

  @Test
  void aBeforeImageThatIsNotTheLastStateIsReported() {
    List<Change> changes = new ArrayList<>();
    changes.add(change(INSERT, 1, 0, "0"));
    pair(changes, 1, 0, "0", 2, "0,1,2");
    // the next pair starts from version 1: a change was applied to a state the key no longer had
    pair(changes, 1, 1, "0,1", 3, "0,1,2,3");

    assertThat(check(changes).problems())
        .containsExactly(
            "key 1: -U {id=1, v=1, history=0,1} is not the last state {id=1, v=2, history=0,1,2}");
  }

  @Test
  void theSameChangePublishedTwiceIsReportedAsANoOpPair() {
    List<Change> changes = new ArrayList<>();
    changes.add(change(INSERT, 1, 0, "0"));
    pair(changes, 1, 0, "0", 1, "0,1");
    // a record delivered twice around a move, written again: before equals after
    pair(changes, 1, 1, "0,1", 1, "0,1");

    assertThat(check(changes).problems())
        .containsExactly(
            "key 1: +U {id=1, v=1, history=0,1} repeats the last state: a no-op -U/+U pair");
  }

  @Test
  void insertsOfPresentKeysAndDeletesAreReported() {
    List<Change> changes = new ArrayList<>();
    changes.add(change(INSERT, 1, 0, "0"));
    changes.add(change(INSERT, 1, 0, "0"));
    changes.add(change(DELETE, 1, 0, "0"));
    changes.add(change(UPDATE_AFTER, 2, 1, "0,1"));

    assertThat(check(changes).problems())
        .containsExactly(
            "key 1: +I {id=1, v=0, history=0} after {id=1, v=0, history=0}",
            "key 1: unexpected -D {id=1, v=0, history=0}",
            "key 2: +U {id=2, v=1, history=0,1} of an absent key");
  }

  private static VersionedChangelog.Check check(List<Change> changes) {
    return VersionedChangelog.check(changes, "id", "v", "history");
  }

  private static void pair(
      List<Change> changes, int id, long fromV, String fromH, long toV, String toH) {
    changes.add(change(UPDATE_BEFORE, id, fromV, fromH));
    changes.add(change(UPDATE_AFTER, id, toV, toH));
  }

  private static Change change(RowKind kind, int id, long v, String history) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    row.put("v", v);
    row.put("history", history);
    return new Change(kind, row);
  }
}
