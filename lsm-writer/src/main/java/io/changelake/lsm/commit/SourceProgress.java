package io.changelake.lsm.commit;

import java.util.Map;

/**
 * What a commit records about its Kafka input, atomically with its data: per partition the next
 * offset to consume, and optionally a mark the writer of the partition defines (the sink stores the
 * source position reached in the partition there). lsm-writer stores marks and gives them back with
 * their offsets; it never interprets them.
 *
 * @param offsets the next offset to consume per partition
 * @param marks a short text per partition, stored and read back with its offset; partitions without
 *     one have none
 */
public record SourceProgress(
    Map<SourcePartition, Long> offsets, Map<SourcePartition, String> marks) {

  public SourceProgress {
    offsets = Map.copyOf(offsets);
    marks = Map.copyOf(marks);
  }

  /** Offsets without marks. */
  public static SourceProgress of(Map<SourcePartition, Long> offsets) {
    return new SourceProgress(offsets, Map.of());
  }
}
