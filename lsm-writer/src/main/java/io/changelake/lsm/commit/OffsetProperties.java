package io.changelake.lsm.commit;

import java.util.HashMap;
import java.util.Map;

/**
 * How Kafka offsets are written into snapshot properties: one property per partition, {@code
 * changelake.offset.<partition>.<topic> = <next offset>}, and the partition's mark, if any, as
 * {@code changelake.mark.<partition>.<topic> = <mark>}. The partition comes first because topic
 * names may contain dots.
 */
public final class OffsetProperties {
  /** Prefix of every offset property. */
  public static final String PREFIX = "changelake.offset.";

  /** Prefix of every mark property. */
  public static final String MARK_PREFIX = "changelake.mark.";

  private OffsetProperties() {}

  /** The snapshot properties that record {@code offsets}. */
  public static Map<String, String> encode(Map<SourcePartition, Long> offsets) {
    Map<String, String> properties = new HashMap<>();
    offsets.forEach((partition, offset) -> properties.put(key(partition), Long.toString(offset)));
    return properties;
  }

  /** The snapshot properties that record {@code progress}: its offsets and marks. */
  public static Map<String, String> encode(SourceProgress progress) {
    Map<String, String> properties = encode(progress.offsets());
    progress
        .marks()
        .forEach(
            (partition, mark) -> {
              if (progress.offsets().containsKey(partition)) {
                properties.put(MARK_PREFIX + suffix(partition), mark);
              }
            });
    return properties;
  }

  /** The marks recorded in {@code properties}, per partition. */
  public static Map<SourcePartition, String> decodeMarks(Map<String, String> properties) {
    Map<SourcePartition, String> marks = new HashMap<>();
    if (properties == null) {
      return marks;
    }
    properties.forEach(
        (key, value) -> {
          if (key.startsWith(MARK_PREFIX)) {
            marks.put(partitionOf(key.substring(MARK_PREFIX.length()), key), value);
          }
        });
    return marks;
  }

  /** The offsets recorded in {@code properties}; other properties are ignored. */
  public static Map<SourcePartition, Long> decode(Map<String, String> properties) {
    Map<SourcePartition, Long> offsets = new HashMap<>();
    if (properties == null) {
      return offsets;
    }
    properties.forEach(
        (key, value) -> {
          if (key.startsWith(PREFIX)) {
            offsets.put(partition(key), Long.parseLong(value));
          }
        });
    return offsets;
  }

  static String key(SourcePartition partition) {
    return PREFIX + suffix(partition);
  }

  private static String suffix(SourcePartition partition) {
    return partition.partition() + "." + partition.topic();
  }

  static SourcePartition partition(String key) {
    return partitionOf(key.substring(PREFIX.length()), key);
  }

  private static SourcePartition partitionOf(String rest, String key) {
    int dot = rest.indexOf('.');
    if (dot <= 0) {
      throw new IllegalArgumentException("Malformed offset property '" + key + "'");
    }
    return new SourcePartition(rest.substring(dot + 1), Integer.parseInt(rest.substring(0, dot)));
  }
}
