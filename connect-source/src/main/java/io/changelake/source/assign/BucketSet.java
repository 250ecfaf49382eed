package io.changelake.source.assign;

import java.util.Arrays;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The buckets of a table one task reads; empty means all of them (also the only choice for
 * dynamic-bucket tables).
 */
public record BucketSet(SortedSet<Integer> buckets) {
  private static final String ALL = "all";

  public BucketSet {
    buckets = new TreeSet<>(buckets);
  }

  public static BucketSet all() {
    return new BucketSet(new TreeSet<>());
  }

  public static BucketSet of(Set<Integer> buckets) {
    return new BucketSet(new TreeSet<>(buckets));
  }

  public boolean isAll() {
    return buckets.isEmpty();
  }

  /** {@code all} or the bucket numbers joined by commas, e.g. {@code 0,2}. */
  public String encode() {
    return isAll() ? ALL : buckets.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  public static BucketSet decode(String text) {
    if (ALL.equals(text)) {
      return all();
    }
    return of(Arrays.stream(text.split(",")).map(Integer::valueOf).collect(Collectors.toSet()));
  }
}
