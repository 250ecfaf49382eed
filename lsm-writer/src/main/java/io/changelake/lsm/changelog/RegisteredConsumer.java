package io.changelake.lsm.changelog;

import java.util.Set;

/**
 * A Paimon consumer a changelog reader registered on a table ({@link ChangelogReader#consumers}).
 *
 * @param id the consumer id
 * @param buckets the buckets of the reader that registered it; empty for all
 * @param nextSnapshot the oldest snapshot it still needs
 */
public record RegisteredConsumer(String id, Set<Integer> buckets, long nextSnapshot) {
  public RegisteredConsumer {
    buckets = Set.copyOf(buckets);
  }
}
