package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Writes a Connect value straight to a JSON token stream, producing exactly the bytes JsonConverter
 * writes for it (with decimals in the default base64 format) without building a JSON tree first.
 * Every case JsonConverter would reject, and every value it would write in a way this class does
 * not copy, throws {@link NotOnFastPath}: the caller then lets JsonConverter handle the value, so
 * error messages stay JsonConverter's own.
 */
final class PayloadWriter {

  private final boolean replaceNullWithDefault;

  PayloadWriter(boolean replaceNullWithDefault) {
    this.replaceNullWithDefault = replaceNullWithDefault;
  }

  void write(Schema schema, Object value, JsonGenerator out) throws IOException {
    if (value == null) {
      writeNull(schema, out);
      return;
    }
    String logicalName = schema.name();
    if (logicalName != null && writeLogical(logicalName, schema, value, out)) {
      return;
    }
    try {
      switch (schema.type()) {
        case INT8 -> out.writeNumber((Byte) value);
        case INT16 -> out.writeNumber((Short) value);
        case INT32 -> out.writeNumber((Integer) value);
        case INT64 -> out.writeNumber((Long) value);
        case FLOAT32 -> out.writeNumber((Float) value);
        case FLOAT64 -> out.writeNumber((Double) value);
        case BOOLEAN -> out.writeBoolean((Boolean) value);
        case STRING -> out.writeString(((CharSequence) value).toString());
        case BYTES -> out.writeBinary(bytesOf(value));
        case ARRAY -> writeArray(schema, (Collection<?>) value, out);
        case MAP -> writeMap(schema, (Map<?, ?>) value, out);
        case STRUCT -> writeStruct(schema, (Struct) value, out);
        default -> throw NotOnFastPath.INSTANCE;
      }
    } catch (ClassCastException e) {
      throw NotOnFastPath.INSTANCE; // JsonConverter reports the invalid type
    }
  }

  private void writeNull(Schema schema, JsonGenerator out) throws IOException {
    if (schema.defaultValue() != null && replaceNullWithDefault) {
      write(schema, schema.defaultValue(), out);
    } else if (schema.isOptional()) {
      out.writeNull();
    } else {
      throw NotOnFastPath.INSTANCE; // a required value is missing: JsonConverter's error
    }
  }

  /** Connect's logical types, written as JsonConverter writes them; false for any other name. */
  private static boolean writeLogical(String name, Schema schema, Object value, JsonGenerator out)
      throws IOException {
    try {
      switch (name) {
        case Decimal.LOGICAL_NAME ->
            out.writeBinary(Decimal.fromLogical(schema, (BigDecimal) value));
        case Date.LOGICAL_NAME -> out.writeNumber(Date.fromLogical(schema, (java.util.Date) value));
        case Time.LOGICAL_NAME -> out.writeNumber(Time.fromLogical(schema, (java.util.Date) value));
        case Timestamp.LOGICAL_NAME ->
            out.writeNumber(Timestamp.fromLogical(schema, (java.util.Date) value));
        default -> {
          return false;
        }
      }
      return true;
    } catch (RuntimeException e) {
      throw NotOnFastPath.INSTANCE;
    }
  }

  private static byte[] bytesOf(Object value) {
    if (value instanceof byte[] bytes) {
      return bytes;
    }
    if (value instanceof ByteBuffer buffer && buffer.hasArray()) {
      return buffer.array(); // JsonConverter writes the whole backing array too
    }
    throw NotOnFastPath.INSTANCE;
  }

  private void writeArray(Schema schema, Collection<?> values, JsonGenerator out)
      throws IOException {
    Schema elementSchema = schema.valueSchema();
    out.writeStartArray();
    for (Object element : values) {
      write(elementSchema, element, out);
    }
    out.writeEndArray();
  }

  private void writeMap(Schema schema, Map<?, ?> map, JsonGenerator out) throws IOException {
    Schema keySchema = schema.keySchema();
    Schema valueSchema = schema.valueSchema();
    if (keySchema.type() == Schema.Type.STRING && keySchema.name() == null) {
      // a JSON object; JsonConverter keeps the last of equal names, which string keys never are
      out.writeStartObject();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!(entry.getKey() instanceof CharSequence key)) {
          throw NotOnFastPath.INSTANCE;
        }
        out.writeFieldName(key.toString());
        write(valueSchema, entry.getValue(), out);
      }
      out.writeEndObject();
      return;
    }
    if (keySchema.type() == Schema.Type.STRING) {
      throw NotOnFastPath.INSTANCE; // a named string key: rare, left to JsonConverter
    }
    out.writeStartArray();
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      out.writeStartArray();
      write(keySchema, entry.getKey(), out);
      write(valueSchema, entry.getValue(), out);
      out.writeEndArray();
    }
    out.writeEndArray();
  }

  private void writeStruct(Schema schema, Struct struct, JsonGenerator out) throws IOException {
    // identity first: deep schema equality on every struct would cost more than the writing
    if (struct.schema() != schema && !struct.schema().equals(schema)) {
      throw NotOnFastPath.INSTANCE; // JsonConverter's "Mismatching schema."
    }
    List<Field> fields = schema.fields();
    out.writeStartObject();
    for (Field field : fields) {
      out.writeFieldName(field.name());
      // as in JsonConverter: a null field reads as its default only when nulls are replaced
      Object value =
          replaceNullWithDefault ? struct.get(field) : struct.getWithoutDefault(field.name());
      write(field.schema(), value, out);
    }
    out.writeEndObject();
  }
}
