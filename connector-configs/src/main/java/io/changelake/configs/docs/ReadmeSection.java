package io.changelake.configs.docs;

/**
 * The generated part of a README, between {@code <!-- config-reference:start -->} and {@code <!--
 * config-reference:end -->}. Only that part is ever rewritten.
 */
public final class ReadmeSection {
  public static final String START = "<!-- config-reference:start -->";
  public static final String END = "<!-- config-reference:end -->";
  static final String HEADING = "## Configuration reference";

  private ReadmeSection() {}

  /** The text currently between the markers, or null when the markers are missing. */
  public static String current(String readme) {
    int start = readme.indexOf(START);
    int end = readme.indexOf(END);
    if (start < 0 || end < start) {
      return null;
    }
    return readme.substring(start + START.length(), end);
  }

  /** The README with {@code generated} between the markers (appended with a heading if absent). */
  public static String replace(String readme, String generated) {
    String body = "\n" + generated.strip() + "\n";
    if (current(readme) == null) {
      String base = readme.endsWith("\n") ? readme : readme + "\n";
      return base + "\n" + HEADING + "\n\n" + START + body + END + "\n";
    }
    int start = readme.indexOf(START) + START.length();
    int end = readme.indexOf(END);
    return readme.substring(0, start) + body + readme.substring(end);
  }
}
