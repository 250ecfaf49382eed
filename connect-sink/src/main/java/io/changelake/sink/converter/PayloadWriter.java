package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  private final StructFieldsCache structFields;

  /**
   * @param replaceNullWithDefault JsonConverter's {@code replace.null.with.default}
   * @param structFields the struct plans of the output this writer writes to (one writer per
   *     output: it is not thread-safe)
   */
  PayloadWriter(boolean replaceNullWithDefault, StructFieldsCache structFields) {
    this.replaceNullWithDefault = replaceNullWithDefault;
    this.structFields = structFields;
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
    StructFields plan = structFields.of(schema);
    if (plan.repeats() != null) {
      SerializableString written = plan.repeats().bytesOf(plan, struct, this);
      if (written != null) {
        out.writeRawValue(written);
        return;
      }
    }
    writeFields(plan, struct, out);
  }

  /** The fields of {@code struct} as a JSON object, as JsonConverter writes them. */
  private void writeFields(StructFields plan, Struct struct, JsonGenerator out) throws IOException {
    Field[] fields = plan.fields();
    SerializableString[] names = plan.names();
    boolean[] defaults = plan.withDefault();
    out.writeStartObject();
    for (int i = 0; i < fields.length; i++) {
      Field field = fields[i];
      if (names[i] != null) {
        out.writeFieldName(names[i]);
      } else {
        out.writeFieldName(field.name());
      }
      Object value = struct.get(field);
      if (defaults[i] && !replaceNullWithDefault) {
        // as in JsonConverter: a null field reads as its default only when nulls are replaced
        value = struct.getWithoutDefault(field.name());
      }
      write(field.schema(), value, out);
    }
    out.writeEndObject();
  }

  /**
   * A struct schema's fields with their names encoded once as JSON (names of plain ASCII; null for
   * any other): writing a field name is then a copy of bytes, not an escaping pass over its
   * characters per record.
   */
  record StructFields(
      Field[] fields, SerializableString[] names, boolean[] withDefault, Repeats repeats) {

    static StructFields of(Schema schema, JsonFactory factory) {
      List<Field> list = schema.fields();
      Field[] fields = list.toArray(new Field[0]);
      SerializableString[] names = new SerializableString[fields.length];
      boolean[] withDefault = new boolean[fields.length];
      for (int i = 0; i < fields.length; i++) {
        String name = fields[i].name();
        names[i] = plainAscii(name) ? new SerializedString(name) : null;
        withDefault[i] = fields[i].schema().defaultValue() != null;
      }
      return new StructFields(fields, names, withDefault, Repeats.ofFields(fields, factory));
    }

    /**
     * Whether a name is printable ASCII needing no escape. Only such names are encoded ahead:
     * Jackson's pre-encoded names write a character outside the basic plane as four UTF-8 bytes,
     * its generator as two escaped surrogates (as JsonConverter does).
     */
    private static boolean plainAscii(String name) {
      for (int i = 0; i < name.length(); i++) {
        char c = name.charAt(i);
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * The bytes of the last struct of one schema, for a struct handed over for record after record (a
   * source connector's block saying where a batch of changes comes from): such a struct is written
   * once and its bytes copied after that. Only the very same struct object qualifies, holding the
   * very same value objects as when its bytes were taken, all of immutable classes and written as
   * ASCII (a struct changed in between, or a value that could have been, is written again), so the
   * bytes are always what writing it would give. A struct seen once, like a row, costs an identity
   * check. One per output: not thread-safe.
   */
  static final class Repeats {
    private static final Set<Class<?>> IMMUTABLE =
        Set.of(
            String.class,
            Boolean.class,
            Byte.class,
            Short.class,
            Integer.class,
            Long.class,
            Float.class,
            Double.class,
            BigDecimal.class);

    private final JsonFactory factory;
    private Struct last;
    private Object[] values;
    private SerializableString bytes;
    private ByteArrayBuilder scratch;
    private JsonGenerator scratchGenerator;

    private Repeats(JsonFactory factory) {
      this.factory = factory;
    }

    /**
     * Structs of these fields can repeat when every field is a scalar without a default (bytes,
     * arrays, maps, structs and java.util.Date values are mutable; a null field with a default is
     * written either way depending on the configuration).
     */
    static Repeats ofFields(Field[] fields, JsonFactory factory) {
      for (Field field : fields) {
        Schema schema = field.schema();
        String name = schema.name();
        boolean decimal = Decimal.LOGICAL_NAME.equals(name);
        boolean date =
            Date.LOGICAL_NAME.equals(name)
                || Time.LOGICAL_NAME.equals(name)
                || Timestamp.LOGICAL_NAME.equals(name);
        boolean scalar =
            switch (schema.type()) {
              case INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING -> true;
              case BYTES -> decimal;
              default -> false;
            };
        if (!scalar || date || schema.defaultValue() != null) {
          return null;
        }
      }
      return new Repeats(factory);
    }

    /**
     * The bytes of {@code struct} when it was written as it is now before; null when it must be
     * written (a struct not seen before, or changed since, or one that cannot repeat).
     */
    SerializableString bytesOf(StructFields plan, Struct struct, PayloadWriter writer)
        throws IOException {
      if (struct != last) {
        last = struct;
        bytes = null;
        return null;
      }
      Field[] fields = plan.fields();
      if (bytes != null && unchanged(struct, fields)) {
        return bytes;
      }
      // seen a second time: take its bytes, if every value is of an immutable class
      Object[] now = new Object[fields.length];
      for (int i = 0; i < fields.length; i++) {
        Object value = struct.get(fields[i]);
        if (value != null && !IMMUTABLE.contains(value.getClass())) {
          last = null;
          return null;
        }
        now[i] = value;
      }
      byte[] written = render(plan, struct, writer);
      for (byte b : written) {
        if (b < 0x20) { // non-ASCII (negative) or a control character: not copied as raw text
          last = null;
          return null;
        }
      }
      values = now;
      bytes = new SerializedString(new String(written, StandardCharsets.US_ASCII));
      return bytes;
    }

    private byte[] render(StructFields plan, Struct struct, PayloadWriter writer)
        throws IOException {
      if (scratchGenerator == null) {
        scratch = new ByteArrayBuilder(512);
        scratchGenerator = factory.createGenerator(scratch);
        scratchGenerator.setRootValueSeparator(null);
      }
      scratch.reset();
      try {
        writer.writeFields(plan, struct, scratchGenerator);
        scratchGenerator.flush();
      } catch (IOException | RuntimeException e) {
        // the generator stopped inside the struct: dropped; the caller's write fails the same way
        scratchGenerator = null;
        last = null;
        throw e;
      }
      return scratch.toByteArray();
    }

    private boolean unchanged(Struct struct, Field[] fields) {
      for (int i = 0; i < fields.length; i++) {
        if (struct.get(fields[i]) != values[i]) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * {@link StructFields} per struct schema, by identity (a connector reuses its schema objects;
   * deep equality per struct would cost more than it saves). Bounded by clearing, like the written
   * schemas. One per output: not thread-safe.
   */
  static final class StructFieldsCache {
    private static final int CAPACITY = 1_000;
    private final Map<Schema, StructFields> bySchema = new IdentityHashMap<>();
    private final JsonFactory factory;

    /**
     * @param factory makes the generators of repeated structs, as the output's own
     */
    StructFieldsCache(JsonFactory factory) {
      this.factory = factory;
    }

    StructFields of(Schema schema) {
      StructFields plan = bySchema.get(schema);
      if (plan == null) {
        if (bySchema.size() >= CAPACITY) {
          bySchema.clear();
        }
        plan = StructFields.of(schema, factory);
        bySchema.put(schema, plan);
      }
      return plan;
    }
  }
}
