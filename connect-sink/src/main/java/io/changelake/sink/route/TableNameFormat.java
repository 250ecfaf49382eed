package io.changelake.sink.route;

import io.changelake.sink.decode.SourceInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table name with placeholders: {@code ${topic}}, {@code ${source.db}}, {@code ${source.schema}},
 * {@code ${source.table}}. Parsed once; unknown placeholders are rejected when the connector is
 * validated, not when the first record arrives.
 */
public final class TableNameFormat {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");
  private static final List<String> KNOWN =
      List.of("topic", "source.db", "source.schema", "source.table");

  private final String format;
  private final List<String> placeholders;

  private TableNameFormat(String format, List<String> placeholders) {
    this.format = format;
    this.placeholders = placeholders;
  }

  /** Parses a format; throws with the offending placeholder when it is not one of the known. */
  public static TableNameFormat parse(String format) {
    if (format == null || format.isBlank()) {
      throw new IllegalArgumentException("The table name format is empty; use e.g. ${topic}");
    }
    List<String> found = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(format);
    while (m.find()) {
      if (!KNOWN.contains(m.group(1))) {
        throw new IllegalArgumentException(
            "Unknown placeholder ${" + m.group(1) + "}; use one of " + placeholdersList());
      }
      found.add(m.group(1));
    }
    String rest = PLACEHOLDER.matcher(format).replaceAll("");
    if (rest.contains("${")) {
      throw new IllegalArgumentException("Unclosed placeholder in '" + format + "'");
    }
    return new TableNameFormat(format, List.copyOf(found));
  }

  /** True when the format has no placeholders: every record goes to the same table. */
  public boolean isStatic() {
    return placeholders.isEmpty();
  }

  /** True when the name follows from the topic alone: no placeholder of the source block. */
  public boolean usesTopicAlone() {
    return placeholders.stream().allMatch("topic"::equals);
  }

  /**
   * The table name for a record of {@code topic}; throws naming the placeholder when the record
   * lacks the source field it needs (e.g. a flattened record has no source block).
   */
  public String format(String topic, SourceInfo source) {
    StringBuilder out = new StringBuilder();
    Matcher m = PLACEHOLDER.matcher(format);
    while (m.find()) {
      String value =
          switch (m.group(1)) {
            case "topic" -> topic;
            case "source.db" -> required(m.group(1), source.db());
            case "source.schema" -> required(m.group(1), source.schema());
            case "source.table" -> required(m.group(1), source.table());
            default -> throw new IllegalStateException(m.group(1));
          };
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String required(String placeholder, Optional<String> value) {
    return value.orElseThrow(
        () ->
            new IllegalArgumentException(
                "The record has no "
                    + placeholder
                    + " for ${"
                    + placeholder
                    + "} in route.table.format (flattened records carry no source block"
                    + " unless ExtractNewRecordState adds it); use ${topic} or"
                    + " route.regex.rules instead"));
  }

  private static String placeholdersList() {
    return KNOWN.stream().map(k -> "${" + k + "}").toList().toString();
  }

  @Override
  public String toString() {
    return format;
  }
}
