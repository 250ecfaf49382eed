package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.changelake.sink.Versions;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.DecimalFormat;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.ConverterType;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.storage.StringConverterConfig;

/**
 * A drop-in replacement for Kafka's {@link JsonConverter} that returns the same Connect schemas and
 * values, but parses each distinct embedded schema only once.
 *
 * <p>With {@code schemas.enable=true} every message repeats its full schema (for a Debezium
 * envelope usually more bytes than the row itself), and JsonConverter builds a JSON tree of all of
 * it before its schema cache can even be consulted. This converter finds the schema by a byte scan,
 * looks it up by its exact bytes, and reads the payload straight from the token stream. Messages it
 * has not seen the schema of, and anything unusual (schemas disabled, a fixed {@code
 * schema.content}, JSON types that do not match the schema), go to an embedded JsonConverter, so
 * results and error messages are JsonConverter's own.
 *
 * <p>Writing ({@code fromConnectData}, e.g. for a source connector) produces exactly
 * JsonConverter's bytes, but serializes each distinct schema once (the envelope's start is then
 * copied as bytes), streams the payload field by field without building a JSON tree, and reuses one
 * JSON generator and output buffer from record to record ({@link WriteBuffer}). Schemaless values,
 * {@code decimal.format=NUMERIC} and values JsonConverter would reject go to JsonConverter.
 *
 * <p>Configuration is JsonConverter's; {@code schemas.cache.size} also bounds this converter's
 * cache of parsed schemas.
 */
public class CachingJsonConverter implements Converter, HeaderConverter {

  // JsonConverter's fixed-schema option (Kafka 4.1+). Read from the raw configs, not through
  // JsonConverterConfig.schemaContent(): a 3.9 or 4.0 worker's JsonConverterConfig has no such
  // method (NoSuchMethodError at configure) and ignores the option anyway.
  private static final String SCHEMA_CONTENT_CONFIG = "schema.content";

  private final JsonConverter delegate = new JsonConverter();
  // the same parser leniency as JsonConverter's deserializer
  private final JsonFactory jsonFactory =
      JsonFactory.builder().enable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS).build();
  private boolean fastPath;
  private boolean fastWrites;
  private boolean schemasEnabled;
  private WrittenSchemas writtenSchemas;
  private boolean replaceNullWithDefault;
  // the output fromConnectData writes into, reused from record to record; null while in use
  private final AtomicReference<WriteBuffer> idleBuffer = new AtomicReference<>();
  private SchemaCache schemaCache;
  private PayloadReader payloadReader;
  // counted by whichever thread converts: a converter shared between threads counts every value
  private final LongAdder fastConversions = new LongAdder();
  private final LongAdder fastWritten = new LongAdder();

  @Override
  public String version() {
    return Versions.VERSION;
  }

  @Override
  public ConfigDef config() {
    return JsonConverterConfig.configDef();
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    Map<String, Object> withType = new HashMap<>(configs);
    withType.put(
        StringConverterConfig.TYPE_CONFIG,
        isKey ? ConverterType.KEY.getName() : ConverterType.VALUE.getName());
    configure(withType);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    delegate.configure(configs);
    JsonConverterConfig config = new JsonConverterConfig(configs);
    boolean fixedSchema = fixedSchema(configs);
    fastPath = config.schemasEnabled() && !fixedSchema;
    schemaCache = new SchemaCache(config.schemaCacheSize());
    payloadReader = new PayloadReader(config.replaceNullWithDefault());
    schemasEnabled = config.schemasEnabled();
    fastWrites = !fixedSchema && config.decimalFormat() == DecimalFormat.BASE64;
    writtenSchemas = new WrittenSchemas(config.schemaCacheSize(), delegate);
    replaceNullWithDefault = config.replaceNullWithDefault();
    idleBuffer.set(null);
  }

  /** Whether JsonConverter is told a fixed schema (it then reads payloads without an envelope). */
  private static boolean fixedSchema(Map<String, ?> configs) {
    Object content = configs.get(SCHEMA_CONTENT_CONFIG);
    return content != null && !content.toString().isEmpty();
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    if (value == null) {
      return SchemaAndValue.NULL;
    }
    int schemaStart = fastPath ? EnvelopeSpan.schemaStart(value) : -1;
    if (schemaStart < 0) {
      return delegate.toConnectData(topic, value);
    }
    SchemaCache.Hit hit = schemaCache.sameAsLast(topic, value, schemaStart);
    EnvelopeSpan span;
    Schema schema;
    if (hit != null) {
      span = hit.span();
      schema = hit.schema();
    } else {
      span = EnvelopeSpan.locate(value);
      if (span == null) {
        return delegate.toConnectData(topic, value);
      }
      schema = schemaCache.get(value, span);
      if (schema == null) {
        // JsonConverter parses the schema (and the whole message) this first time
        SchemaAndValue converted = delegate.toConnectData(topic, value);
        schemaCache.put(value, span, converted.schema());
        schemaCache.rememberForTopic(topic, value, span);
        return converted;
      }
      schemaCache.rememberForTopic(topic, value, span);
    }
    try {
      SchemaAndValue converted = new SchemaAndValue(schema, readPayload(schema, value, span));
      fastConversions.increment();
      return converted;
    } catch (IOException | RuntimeException e) {
      // unusual input: JsonConverter converts it, or fails with its own message
      return delegate.toConnectData(topic, value);
    }
  }

  private Object readPayload(Schema schema, byte[] value, EnvelopeSpan span) throws IOException {
    int length = span.payloadEnd() - span.payloadStart();
    try (JsonParser parser = jsonFactory.createParser(value, span.payloadStart(), length)) {
      Object result = payloadReader.read(schema, parser, parser.nextToken());
      if (parser.nextToken() != null) {
        throw NotOnFastPath.INSTANCE; // more than one value: not a valid envelope
      }
      return result;
    }
  }

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    if (!fastWrites || schema == null || value == null) {
      return delegate.fromConnectData(topic, schema, value);
    }
    // Connect gives every task its own converter instances and calls them on the task thread
    // only; should one still be shared, a second thread writes with an output of its own
    WriteBuffer buffer = idleBuffer.getAndSet(null);
    if (buffer == null) {
      buffer = new WriteBuffer(jsonFactory, replaceNullWithDefault);
    }
    try {
      byte[] written =
          buffer.write(
              schemasEnabled ? writtenSchemas.envelopeStartOf(schema) : null, schema, value);
      idleBuffer.set(buffer);
      fastWritten.increment();
      return written;
    } catch (IOException | RuntimeException e) {
      // the buffer's generator stopped inside a value: it is dropped, the next write makes another
      // a value JsonConverter rejects or writes its own way: its bytes, or its error
      return delegate.fromConnectData(topic, schema, value);
    }
  }

  @Override
  public SchemaAndValue toConnectHeader(String topic, String headerKey, byte[] value) {
    return toConnectData(topic, value);
  }

  @Override
  public byte[] fromConnectHeader(String topic, String headerKey, Schema schema, Object value) {
    return delegate.fromConnectHeader(topic, headerKey, schema, value);
  }

  /** How many messages were converted without JsonConverter; for tests and diagnostics. */
  long fastConversions() {
    return fastConversions.sum();
  }

  /** How many values were written without JsonConverter; for tests and diagnostics. */
  long fastWritten() {
    return fastWritten.sum();
  }

  /** How many distinct schemas are cached; for tests and diagnostics. */
  int cachedSchemas() {
    return schemaCache.size();
  }

  @Override
  public void close() {
    idleBuffer.set(null);
    delegate.close();
  }
}
