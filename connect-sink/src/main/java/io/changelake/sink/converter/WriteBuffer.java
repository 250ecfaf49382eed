package io.changelake.sink.converter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;

/**
 * One JSON generator and its output buffer, reused for every value a converter writes: creating a
 * generator per record (and the buffers Jackson allocates for it) cost more than writing a small
 * record. Values are written one after the other as root values without a separator, each taken out
 * as its own byte array. Not thread-safe: one writer at a time.
 *
 * <p>A write that fails leaves the generator inside a value; the buffer must then be dropped (the
 * next {@link #write} would otherwise continue that value).
 */
final class WriteBuffer {

  /** Writes one value to the generator. */
  @FunctionalInterface
  interface ValueWriter {
    void write(JsonGenerator generator) throws IOException;
  }

  private final ByteArrayBuilder out = new ByteArrayBuilder(4096);
  private final JsonGenerator generator;

  WriteBuffer(JsonFactory factory) {
    try {
      generator = factory.createGenerator(out);
    } catch (IOException e) {
      throw new IllegalStateException("a JSON generator over a byte array cannot fail", e);
    }
    // JsonConverter writes one value per message: no space between consecutive root values
    generator.setRootValueSeparator(null);
  }

  /**
   * The bytes of {@code prefix} (null: none), then the value, then a closing brace when {@code
   * closeEnvelope}.
   */
  byte[] write(byte[] prefix, ValueWriter value, boolean closeEnvelope) throws IOException {
    out.reset();
    if (prefix != null) {
      // the generator holds nothing unflushed between writes, so bytes go straight to the buffer
      out.write(prefix);
    }
    value.write(generator);
    generator.flush();
    if (closeEnvelope) {
      out.write('}');
    }
    return out.toByteArray();
  }
}
