package io.changelake.e2e.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The per-key order check of a changelog whose rows carry their own version: every update of a key
 * increments a version column by one and appends the new version to a history column ({@code 0},
 * {@code 0,1}, {@code 0,1,2}, ...), so any reordering, lost or repeated update leaves a trace that
 * a later update cannot overwrite.
 *
 * <p>A key's changelog must go up one way: a {@code +I} of a state the database had (version 0, or
 * a later version when the key's first commit also held updates), then {@code -U/+U} pairs where
 * each {@code -U} is exactly the key's previous state and each {@code +U} a <em>higher</em> version
 * whose history extends the previous one (several updates inside one commit merge into one step).
 * Reported as problems: an older version after a newer one (a stale writer winning, even briefly),
 * a history that does not extend the previous one (an update lost or applied out of order), a
 * {@code -U} that is not the last state, a {@code +I} of a present key, a {@code -D}, and a no-op
 * pair whose {@code +U} is exactly the previous state (the same change published twice).
 */
public final class VersionedChangelog {
  private VersionedChangelog() {}

  /**
   * What the check found.
   *
   * @param problems one line per change that breaks the order, empty when there is none
   * @param last each key's last state in the changelog
   * @param steps each key's number of {@code +U} that moved it to a higher version
   */
  public record Check(
      List<String> problems, Map<Object, Map<String, Object>> last, Map<Object, Integer> steps) {}

  /** Checks {@code changes} keyed by column {@code key}, versions in {@code version}. */
  public static Check check(
      List<LakeChangelog.Change> changes, String key, String version, String history) {
    Map<Object, Map<String, Object>> last = new TreeMap<>();
    Map<Object, Integer> steps = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (LakeChangelog.Change c : changes) {
      Object id = c.row().get(key);
      long v = ((Number) c.row().get(version)).longValue();
      String h = (String) c.row().get(history);
      Map<String, Object> previous = last.get(id);
      switch (c.kind()) {
        case INSERT -> {
          // the first commit of a key may hold its insert and later updates, merged into one +I
          if (previous != null || !h.equals(historyOf(v))) {
            problems.add("key " + id + ": +I " + c.row() + " after " + previous);
          }
          last.put(id, c.row());
        }
        case UPDATE_BEFORE -> {
          if (previous == null
              || versionOf(previous, version) != v
              || !h.equals(previous.get(history))) {
            problems.add("key " + id + ": -U " + c.row() + " is not the last state " + previous);
          }
        }
        case UPDATE_AFTER -> {
          if (!h.equals(historyOf(v))) {
            problems.add(
                "key "
                    + id
                    + ": +U "
                    + c.row()
                    + " is no state the database had (its history"
                    + " must be "
                    + historyOf(v)
                    + ")");
          } else if (previous == null) {
            problems.add("key " + id + ": +U " + c.row() + " of an absent key");
          } else if (v == versionOf(previous, version) && h.equals(previous.get(history))) {
            problems.add(
                "key " + id + ": +U " + c.row() + " repeats the last state: a no-op -U/+U pair");
          } else if (v <= versionOf(previous, version)
              || !h.startsWith(previous.get(history) + ",")) {
            problems.add("key " + id + ": +U " + c.row() + " does not follow " + previous);
          } else {
            steps.merge(id, 1, Integer::sum);
          }
          last.put(id, c.row());
        }
        case DELETE -> problems.add("key " + id + ": unexpected -D " + c.row());
      }
    }
    return new Check(problems, last, steps);
  }

  /** The history the database writes with version {@code v}: {@code 0,1,...,v}. */
  private static String historyOf(long v) {
    StringBuilder out = new StringBuilder("0");
    for (long i = 1; i <= v; i++) {
      out.append(',').append(i);
    }
    return out.toString();
  }

  private static long versionOf(Map<String, Object> row, String version) {
    return ((Number) row.get(version)).longValue();
  }
}
