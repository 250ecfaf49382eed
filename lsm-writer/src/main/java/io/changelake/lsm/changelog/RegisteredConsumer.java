package io.changelake.lsm.changelog;

import java.util.Set;

/**
 * A Paimon consumer a changelog reader registered on a table.
 *
 * @param id the consumer id
 * @param buckets the buckets of the reader that registered it; empty for all
 * @param nextSnapshot the oldest snapshot it still needs: every change of its buckets in earlier
 *     snapshots is durable downstream (or was skipped by the reader's start position)
 */
public record RegisteredConsumer(String id, Set<Integer> buckets, long nextSnapshot) {
  public RegisteredConsumer {
    buckets = Set.copyOf(buckets);
  }

  /**
   * True when this consumer's reader read {@code bucket} ({@link ChangelogReader#ALL_BUCKETS}:
   * any).
   */
  public boolean covers(int bucket) {
    return buckets.isEmpty() || buckets.contains(bucket);
  }
}
