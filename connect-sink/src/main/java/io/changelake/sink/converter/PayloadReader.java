package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
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
 * Reads a JSON payload straight from the token stream into Connect values for a known schema, with
 * the same results as JsonConverter's tree-based conversion. It only handles input whose JSON types
 * match the schema; for anything else it throws {@link NotOnFastPath} and the caller lets
 * JsonConverter decide (convert leniently, or fail with its own message), so results and errors
 * stay identical to JsonConverter's in every case.
 */
final class PayloadReader {

  private final boolean replaceNullWithDefault;

  PayloadReader(boolean replaceNullWithDefault) {
    this.replaceNullWithDefault = replaceNullWithDefault;
  }

  /** Reads the value starting at the current token {@code t}. */
  Object read(Schema schema, JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return nullValue(schema);
    }
    String logicalName = schema.name();
    if (logicalName != null) {
      switch (logicalName) {
        case Decimal.LOGICAL_NAME:
          return readDecimal(schema, p, t);
        case Date.LOGICAL_NAME:
          return Date.toLogical(schema, readInt(p, t));
        case Time.LOGICAL_NAME:
          return Time.toLogical(schema, readInt(p, t));
        case Timestamp.LOGICAL_NAME:
          return Timestamp.toLogical(schema, readLong(p, t));
        default:
          break; // other names (Debezium's semantic types) convert by their physical type
      }
    }
    return switch (schema.type()) {
      case BOOLEAN -> readBoolean(t);
      case INT8 -> (byte) readLong(p, t);
      case INT16 -> (short) readLong(p, t);
      case INT32 -> (int) readLong(p, t);
      case INT64 -> readLong(p, t);
      case FLOAT32 ->
          t == JsonToken.VALUE_NUMBER_FLOAT
              ? p.getDecimalValue().floatValue()
              : (float) readLong(p, t);
      case FLOAT64 ->
          t == JsonToken.VALUE_NUMBER_FLOAT
              ? p.getDecimalValue().doubleValue()
              : (double) readLong(p, t);
      case BYTES -> {
        expect(t, JsonToken.VALUE_STRING);
        yield p.getBinaryValue();
      }
      case STRING -> {
        expect(t, JsonToken.VALUE_STRING);
        yield p.getText();
      }
      case ARRAY -> readArray(schema, p, t);
      case MAP -> readMap(schema, p, t);
      case STRUCT -> readStruct(schema, p, t);
    };
  }

  private Object nullValue(Schema schema) {
    if (schema.defaultValue() != null && replaceNullWithDefault) {
      return schema.defaultValue();
    }
    if (schema.isOptional()) {
      return null;
    }
    throw NotOnFastPath.INSTANCE;
  }

  private Object readDecimal(Schema schema, JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
      return p.getDecimalValue();
    }
    expect(t, JsonToken.VALUE_STRING);
    return Decimal.toLogical(schema, p.getBinaryValue());
  }

  private static Boolean readBoolean(JsonToken t) {
    if (t == JsonToken.VALUE_TRUE) {
      return Boolean.TRUE;
    }
    expect(t, JsonToken.VALUE_FALSE);
    return Boolean.FALSE;
  }

  /** An integer that JsonConverter would hold as an IntNode (what Date and Time require). */
  private static int readInt(JsonParser p, JsonToken t) throws IOException {
    expect(t, JsonToken.VALUE_NUMBER_INT);
    if (p.getNumberType() != JsonParser.NumberType.INT) {
      throw NotOnFastPath.INSTANCE;
    }
    return p.getIntValue();
  }

  /** An integer that fits a long; narrower types are cast as JsonConverter casts them. */
  private static long readLong(JsonParser p, JsonToken t) throws IOException {
    expect(t, JsonToken.VALUE_NUMBER_INT);
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw NotOnFastPath.INSTANCE;
    }
    return p.getLongValue();
  }

  private List<Object> readArray(Schema schema, JsonParser p, JsonToken t) throws IOException {
    expect(t, JsonToken.START_ARRAY);
    List<Object> result = new ArrayList<>();
    Schema elementSchema = schema.valueSchema();
    for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
      result.add(read(elementSchema, p, e));
    }
    return result;
  }

  private Map<Object, Object> readMap(Schema schema, JsonParser p, JsonToken t) throws IOException {
    Map<Object, Object> result = new HashMap<>();
    Schema valueSchema = schema.valueSchema();
    // string-keyed maps are JSON objects; any other key type is an array of [key, value] pairs
    if (schema.keySchema().type() == Schema.Type.STRING) {
      expect(t, JsonToken.START_OBJECT);
      for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
        String key = p.currentName();
        result.put(key, read(valueSchema, p, p.nextToken()));
      }
      return result;
    }
    expect(t, JsonToken.START_ARRAY);
    for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
      expect(e, JsonToken.START_ARRAY);
      Object key = read(schema.keySchema(), p, p.nextToken());
      Object value = read(valueSchema, p, p.nextToken());
      expect(p.nextToken(), JsonToken.END_ARRAY);
      result.put(key, value);
    }
    return result;
  }

  private Struct readStruct(Schema schema, JsonParser p, JsonToken t) throws IOException {
    expect(t, JsonToken.START_OBJECT);
    List<Field> fields = schema.fields();
    Object[] values = new Object[fields.size()];
    boolean[] present = new boolean[fields.size()];
    for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
      Field field = schema.field(p.currentName());
      JsonToken valueToken = p.nextToken();
      if (field == null) {
        p.skipChildren(); // JsonConverter ignores payload fields the schema does not declare
        continue;
      }
      values[field.index()] = read(field.schema(), p, valueToken);
      present[field.index()] = true;
    }
    Struct struct = new Struct(schema.schema());
    for (Field field : fields) {
      int i = field.index();
      struct.put(field, present[i] ? values[i] : nullValue(field.schema()));
    }
    return struct;
  }

  private static void expect(JsonToken actual, JsonToken expected) {
    if (actual != expected) {
      throw NotOnFastPath.INSTANCE;
    }
  }
}
