package io.changelake.testkit;

import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * A change as bytes on a topic: what JsonConverter with {@code schemas.enable=true} writes (the
 * embedded schema and the payload). A value of null is a Kafka tombstone; note that the tombstone
 * {@code ExtractNewRecordState} makes of a delete keeps a schema, so JsonConverter writes it as
 * {@code {"schema":...,"payload":null}}, not as null.
 */
public record JsonRecord(String topic, byte[] key, byte[] value) {
  static final Converter KEYS = new Converter(true);
  static final Converter VALUES = new Converter(false);

  /** A JsonConverter with schemas on, for keys or values. */
  static final class Converter {
    private final JsonConverter converter = new JsonConverter();

    private Converter(boolean isKey) {
      converter.configure(Map.of("schemas.enable", "true"), isKey);
    }

    synchronized byte[] bytes(String topic, Schema schema, Object value) {
      return converter.fromConnectData(topic, schema, value);
    }
  }
}
