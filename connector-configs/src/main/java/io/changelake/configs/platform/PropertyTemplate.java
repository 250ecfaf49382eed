package io.changelake.configs.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fixed set of properties kept as a {@code .properties} resource (the embedded broker and worker,
 * the quickstart's connectors), with {@code {{name}}} placeholders for what is known only at run
 * time (ports, directories): the settings read as the file a user would write, not as code. The
 * placeholder syntax differs from Connect's {@code ${...}}, which the connector templates contain
 * as values.
 */
public final class PropertyTemplate {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z.]+)}}");

  private PropertyTemplate() {}

  /**
   * The properties of classpath resource {@code resource}, in file order, each placeholder replaced
   * by its value in {@code values}; a placeholder without a value fails, naming resource and key.
   */
  public static Map<String, String> load(String resource, Map<String, String> values) {
    Map<String, String> ordered = new LinkedHashMap<>();
    // Properties parses the file format (escapes, continuation lines); the map keeps the order
    Properties reader =
        new Properties() {
          @Override
          public synchronized Object put(Object key, Object value) {
            ordered.put((String) key, (String) value);
            return null;
          }
        };
    try (InputStream in = PropertyTemplate.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Resource " + resource + " is missing from the classpath");
      }
      reader.load(new InputStreamReader(in, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read resource " + resource + ": " + e, e);
    }
    ordered.replaceAll((key, value) -> fill(resource, key, value, values));
    return Collections.unmodifiableMap(ordered);
  }

  private static String fill(
      String resource, String key, String value, Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(value);
    StringBuilder filled = new StringBuilder();
    while (m.find()) {
      String replacement = values.get(m.group(1));
      if (replacement == null) {
        throw new IllegalStateException(
            "Resource " + resource + ", key '" + key + "': no value for {{" + m.group(1) + "}}");
      }
      m.appendReplacement(filled, Matcher.quoteReplacement(replacement));
    }
    return m.appendTail(filled).toString();
  }
}
