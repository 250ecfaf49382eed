package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * The start of the envelope JsonConverter writes for each Connect schema, {@code
 * {"schema":<schema>,"payload":}, serialized once per schema instance.
 * Source connectors reuse one schema object for every record of a table version, so identity is the
 * cheap and sufficient key (an equal but distinct schema is merely serialized again). Bounded by
 * clearing: a connector whose schemas change often must not grow the heap without limit.
 */
final class WrittenSchemas {

  private static final byte[] ENVELOPE_START = "{\"schema\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] PAYLOAD_FIELD = ",\"payload\":".getBytes(StandardCharsets.UTF_8);

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

  /** The envelope's bytes up to its payload, for values of {@code schema}. */
  synchronized byte[] envelopeStartOf(Schema schema) throws JsonProcessingException {
    if (schema == lastSchema) {
      return lastBytes;
    }
    byte[] written = bytes.get(schema);
    if (written == null) {
      if (bytes.size() >= capacity) {
        bytes.clear();
      }
      byte[] schemaBytes = mapper.writeValueAsBytes(converter.asJsonSchema(schema));
      written = new byte[ENVELOPE_START.length + schemaBytes.length + PAYLOAD_FIELD.length];
      System.arraycopy(ENVELOPE_START, 0, written, 0, ENVELOPE_START.length);
      System.arraycopy(schemaBytes, 0, written, ENVELOPE_START.length, schemaBytes.length);
      System.arraycopy(
          PAYLOAD_FIELD,
          0,
          written,
          ENVELOPE_START.length + schemaBytes.length,
          PAYLOAD_FIELD.length);
      bytes.put(schema, written);
    }
    lastSchema = schema;
    lastBytes = written;
    return written;
  }
}
