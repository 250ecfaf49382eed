package io.changelake.e2e.bench;

import java.util.Collection;

/** Nearest-rank percentiles of a set of latencies. */
record Percentiles(double p50, double p99, double max, int count) {
  static Percentiles of(Collection<Long> values) {
    long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
    if (v.length == 0) {
      return new Percentiles(Double.NaN, Double.NaN, Double.NaN, 0);
    }
    return new Percentiles(rank(v, 0.50), rank(v, 0.99), v[v.length - 1], v.length);
  }

  private static double rank(long[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
