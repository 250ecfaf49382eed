package io.changelake.lsm.commit;

import java.util.HashMap;
import java.util.Map;

/**
 * How Kafka offsets are written into snapshot properties: one property per partition, {@code
 * changelake.offset.<partition>.<topic> = <next offset>}. The partition comes first because topic
 * names may contain dots.
 */
public final class OffsetProperties {
  /** Prefix of every offset property. */
  public static final String PREFIX = "changelake.offset.";

  private OffsetProperties() {}

  /** The snapshot properties that record {@code offsets}. */
  public static Map<String, String> encode(Map<SourcePartition, Long> offsets) {
    Map<String, String> properties = new HashMap<>();
    offsets.forEach((partition, offset) -> properties.put(key(partition), Long.toString(offset)));
    return properties;
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
    return PREFIX + partition.partition() + "." + partition.topic();
  }

  static SourcePartition partition(String key) {
    String rest = key.substring(PREFIX.length());
    int dot = rest.indexOf('.');
    if (dot <= 0) {
      throw new IllegalArgumentException("Malformed offset property '" + key + "'");
    }
    return new SourcePartition(rest.substring(dot + 1), Integer.parseInt(rest.substring(0, dot)));
  }
}
