package io.changelake.sink.converter;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;

/**
 * Connect schemas keyed by the exact bytes of the embedded JSON schema they were parsed from.
 * Bounded (least recently used entries go first) because a topic whose schema changes often must
 * not grow the worker's heap without limit.
 */
final class SchemaCache {

  private final int capacity;
  private final LinkedHashMap<Key, Entry> entries;
  // Most messages carry the same schema as the one before: check it before hashing into the map.
  private Entry last;

  SchemaCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("schema cache size must be at least 1, was " + capacity);
    }
    this.capacity = capacity;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
            return size() > SchemaCache.this.capacity;
          }
        };
  }

  /** The schema parsed earlier from the same schema bytes, or null. */
  synchronized Schema get(byte[] message, EnvelopeSpan span) {
    Key probe = new Key(message, span.schemaStart(), span.schemaEnd(), span.schemaHash());
    Entry hit = last != null && last.key.equals(probe) ? last : entries.get(probe);
    if (hit == null) {
      return null;
    }
    last = hit;
    return hit.schema;
  }

  synchronized void put(byte[] message, EnvelopeSpan span, Schema schema) {
    byte[] copy = Arrays.copyOfRange(message, span.schemaStart(), span.schemaEnd());
    Key key = new Key(copy, 0, copy.length, span.schemaHash());
    Entry entry = new Entry(key, schema);
    entries.put(key, entry);
    last = entry;
  }

  synchronized int size() {
    return entries.size();
  }

  private record Entry(Key key, Schema schema) {}

  /** A range of bytes; stored keys own their array, look-up probes point into the message. */
  private record Key(byte[] bytes, int from, int to, int hash) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key other
          && hash == other.hash
          && Arrays.equals(bytes, from, to, other.bytes, other.from, other.to);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
