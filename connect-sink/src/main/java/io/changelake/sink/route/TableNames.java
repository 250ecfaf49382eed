package io.changelake.sink.route;

import java.util.Locale;

/** Turns names from topics and source databases into portable Paimon table names. */
public final class TableNames {
  private TableNames() {}

  /**
   * Lower case, every character outside {@code [a-z0-9_]} replaced by {@code _}; a name that would
   * start with a digit gets a leading {@code _}, which every SQL engine accepts unquoted.
   */
  public static String sanitize(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder(lower.length() + 1);
    for (int i = 0; i < lower.length(); i++) {
      char c = lower.charAt(i);
      out.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
    }
    if (out.length() > 0 && Character.isDigit(out.charAt(0))) {
      out.insert(0, '_');
    }
    return out.toString();
  }
}
