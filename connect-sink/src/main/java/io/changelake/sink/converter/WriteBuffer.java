package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import org.apache.kafka.connect.data.Schema;

/**
 * One JSON generator, its output buffer and the struct plans of its {@link PayloadWriter}, reused
 * for every value a converter writes: creating a generator per record (and the buffers Jackson
 * allocates for it) cost more than writing a small record. Values are written one after the other
 * as root values without a separator, each taken out as its own byte array. Not thread-safe: one
 * writer at a time.
 *
 * <p>A write that fails leaves the generator inside a value; the buffer must then be dropped (the
 * next {@link #write} would otherwise continue that value).
 */
final class WriteBuffer {

  private final ByteArrayBuilder out = new ByteArrayBuilder(4096);
  private final JsonGenerator generator;
  private final PayloadWriter payloadWriter;

  WriteBuffer(JsonFactory factory, boolean replaceNullWithDefault) {
    try {
      generator = factory.createGenerator(out);
    } catch (IOException e) {
      throw new IllegalStateException("a JSON generator over a byte array cannot fail", e);
    }
    // JsonConverter writes one value per message: no space between consecutive root values
    generator.setRootValueSeparator(null);
    payloadWriter =
        new PayloadWriter(replaceNullWithDefault, new PayloadWriter.StructFieldsCache(factory));
  }

  /**
   * The bytes of {@code envelopeStart} followed by the value and the envelope's closing brace, or
   * (null {@code envelopeStart}: schemas disabled) the value alone.
   */
  byte[] write(byte[] envelopeStart, Schema schema, Object value) throws IOException {
    out.reset();
    if (envelopeStart != null) {
      // the generator holds nothing unflushed between writes, so bytes go straight to the buffer
      out.write(envelopeStart);
    }
    payloadWriter.write(schema, value, generator);
    generator.flush();
    if (envelopeStart != null) {
      out.write('}');
    }
    return out.toByteArray();
  }
}
