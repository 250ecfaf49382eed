package io.changelake.configs.files;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * Decides which config values must never be printed. A value that is a config-provider reference
 * ({@code ${env:PGPASSWORD}}, {@code ${file:/secrets/pg.properties:password}}) names where the
 * secret lives, not the secret, so it is shown as is.
 */
public final class Secrets {
  /** What the CLI prints instead of a secret value. */
  public static final String HIDDEN = "[hidden]";

  private static final Pattern SENSITIVE_KEY =
      Pattern.compile(
          "(?i).*(password|passwd|secret|token|credential|private[._-]?key|access[._-]?key"
              + "|api[._-]?key|jaas\\.config|ssl\\.key).*");
  // names a mechanism, not a secret: paimon.s3.aws.credentials.provider, paimon.token.provider
  private static final Pattern PROVIDER_KEY = Pattern.compile("(?i).*[._-]providers?$");
  private static final Pattern REFERENCE = Pattern.compile("^\\$\\{[A-Za-z0-9_.-]+:[^}]*}$");
  // shorter values would mask ordinary words in the text around them
  private static final int MIN_REDACTED_LENGTH = 4;

  private Secrets() {}

  /** True for keys whose values are credentials. */
  public static boolean isSensitive(String key) {
    return SENSITIVE_KEY.matcher(key).matches() && !PROVIDER_KEY.matcher(key).matches();
  }

  /** True when the whole value is one config-provider reference. */
  public static boolean isReference(String value) {
    return value != null && REFERENCE.matcher(value.strip()).matches();
  }

  /** The value as it may be printed. */
  public static String display(String key, String value) {
    return display(key, value, false);
  }

  /**
   * The value as it may be printed.
   *
   * @param passwordType Connect declared the key as {@code PASSWORD}
   */
  public static String display(String key, String value, boolean passwordType) {
    if (value == null) {
      return "null";
    }
    if ((passwordType || isSensitive(key)) && !isReference(value) && !value.isEmpty()) {
      return HIDDEN;
    }
    return value;
  }

  /**
   * {@code text} (an error message or trace from Connect) with every literal credential of {@code
   * config} replaced by {@link #HIDDEN}: Connect's messages may quote a value they reject, and a
   * plugin's exception may carry what it was given.
   */
  public static String redact(String text, Map<String, String> config) {
    if (text == null) {
      return null;
    }
    String redacted = text;
    for (Map.Entry<String, String> entry : config.entrySet()) {
      String value = entry.getValue();
      if (isSensitive(entry.getKey())
          && value != null
          && value.length() >= MIN_REDACTED_LENGTH
          && !isReference(value)) {
        redacted = redacted.replace(value, HIDDEN);
      }
    }
    return redacted;
  }
}
