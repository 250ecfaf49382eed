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
  // Most messages of a topic carry the schema of the topic's previous message: comparing bytes
  // with it (vectorized) is far cheaper than scanning and hashing the schema.
  private final Map<String, Entry> lastByTopic = new java.util.concurrent.ConcurrentHashMap<>();
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

  /**
   * The span and schema of a message that repeats, at {@code schemaStart}, the schema bytes of the
   * topic's previous message; null when it does not (then scan and {@link #get}).
   */
  Hit sameAsLast(String topic, byte[] message, int schemaStart) {
    Entry previous = lastByTopic.get(topic == null ? "" : topic);
    if (previous == null) {
      return null;
    }
    Key key = previous.key;
    int length = key.to - key.from;
    int end = schemaStart + length;
    if (end > message.length
        || !Arrays.equals(message, schemaStart, end, key.bytes, key.from, key.to)) {
      return null;
    }
    EnvelopeSpan span = EnvelopeSpan.afterSchema(message, schemaStart, end, key.hash);
    return span == null ? null : new Hit(span, previous.schema);
  }

  /** Remembers the schema the topic's latest message carried. */
  void rememberForTopic(String topic, byte[] message, EnvelopeSpan span) {
    Entry entry;
    synchronized (this) {
      Key probe = new Key(message, span.schemaStart(), span.schemaEnd(), span.schemaHash());
      entry = last != null && last.key.equals(probe) ? last : entries.get(probe);
    }
    if (entry != null) {
      if (lastByTopic.size() >= MAX_TOPICS) {
        lastByTopic.clear(); // a bound for workers reading very many topics
      }
      lastByTopic.put(topic == null ? "" : topic, entry);
    }
  }

  private static final int MAX_TOPICS = 10_000;

  /** A cached schema and where it sits in the message. */
  record Hit(EnvelopeSpan span, Schema schema) {}

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
