package io.changelake.configs.files;

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
  private static final Pattern REFERENCE = Pattern.compile("^\\$\\{[A-Za-z0-9_.-]+:[^}]*}$");

  private Secrets() {}

  /** True for keys whose values are credentials. */
  public static boolean isSensitive(String key) {
    return SENSITIVE_KEY.matcher(key).matches();
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
}
