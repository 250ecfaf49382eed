package io.changelake.configs.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Writes a command's result record as the one JSON document of {@code -o json}. Field names are the
 * record components in snake_case, and null fields are written, not left out, so every documented
 * field is always present.
 */
final class JsonOutput {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(SerializationFeature.INDENT_OUTPUT);

  private JsonOutput() {}

  static void write(PrintWriter out, Object result) {
    try {
      out.println(JSON.writeValueAsString(result));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("Cannot write the result as JSON: " + e.getMessage(), e);
    }
    out.flush();
  }
}
