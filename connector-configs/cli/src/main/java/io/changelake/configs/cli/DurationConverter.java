package io.changelake.configs.cli;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads durations as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h} or ISO-8601. */
final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    try {
      if (v.startsWith("p")) {
        return Duration.parse(value.strip().toUpperCase(Locale.ROOT));
      }
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      long amount = Long.parseLong(v.substring(0, v.length() - 1));
      return switch (v.charAt(v.length() - 1)) {
        case 's' -> Duration.ofSeconds(amount);
        case 'm' -> Duration.ofMinutes(amount);
        case 'h' -> Duration.ofHours(amount);
        default -> throw new NumberFormatException();
      };
    } catch (RuntimeException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration: write e.g. 500ms, 30s, 5m or 1h");
    }
  }
}
