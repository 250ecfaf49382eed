package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * The JSON bytes JsonConverter writes for each Connect schema, serialized once per schema instance.
 * Source connectors reuse one schema object for every record of a table version, so identity is the
 * cheap and sufficient key (an equal but distinct schema is merely serialized again). Bounded by
 * clearing: a connector whose schemas change often must not grow the heap without limit.
 */
final class WrittenSchemas {

  private final int capacity;
  private final JsonConverter converter;
  private final ObjectMapper mapper = new ObjectMapper();
  private final Map<Schema, byte[]> bytes = new IdentityHashMap<>();
  private Schema lastSchema;
  private byte[] lastBytes;

  WrittenSchemas(int capacity, JsonConverter converter) {
    this.capacity = capacity;
    this.converter = converter;
  }

  synchronized byte[] bytesOf(Schema schema) throws JsonProcessingException {
    if (schema == lastSchema) {
      return lastBytes;
    }
    byte[] written = bytes.get(schema);
    if (written == null) {
      if (bytes.size() >= capacity) {
        bytes.clear();
      }
      written = mapper.writeValueAsBytes(converter.asJsonSchema(schema));
      bytes.put(schema, written);
    }
    lastSchema = schema;
    lastBytes = written;
    return written;
  }
}
