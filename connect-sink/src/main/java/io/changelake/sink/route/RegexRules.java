package io.changelake.sink.route;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Topic-to-table rules {@code regex=>replacement;...}; the first rule matching the topic wins. */
public final class RegexRules {
  private static final String ARROW = "=>";

  private record Rule(Pattern pattern, String replacement) {}

  private final List<Rule> rules;

  private RegexRules(List<Rule> rules) {
    this.rules = rules;
  }

  /** Parses the rules; an empty string means no rules. */
  public static RegexRules parse(String spec) {
    List<Rule> rules = new ArrayList<>();
    if (spec != null) {
      for (String part : spec.split(";")) {
        if (part.isBlank()) {
          continue;
        }
        int arrow = part.indexOf(ARROW);
        if (arrow <= 0) {
          throw new IllegalArgumentException(
              "Rule '" + part.trim() + "' is not 'regex=>replacement', e.g. 'db1\\.(.*)=>t_$1'");
        }
        String regex = part.substring(0, arrow).trim();
        String replacement = part.substring(arrow + ARROW.length()).trim();
        if (replacement.isEmpty()) {
          throw new IllegalArgumentException("Rule '" + part.trim() + "' has an empty table name");
        }
        Pattern pattern;
        try {
          pattern = Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
          throw new IllegalArgumentException(
              "Rule '" + part.trim() + "' has an invalid regex: " + e.getDescription());
        }
        // a replacement naming a group the regex lacks would fail on the first record
        try {
          pattern.matcher("").replaceAll(replacement);
          checkGroups(pattern, replacement);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
          throw new IllegalArgumentException(
              "Rule '" + part.trim() + "' has an invalid replacement: " + e.getMessage());
        }
        rules.add(new Rule(pattern, replacement));
      }
    }
    return new RegexRules(List.copyOf(rules));
  }

  private static void checkGroups(Pattern pattern, String replacement) {
    int groups = pattern.matcher("").groupCount();
    Matcher refs = Pattern.compile("\\$(\\d)").matcher(replacement);
    while (refs.find()) {
      if (Integer.parseInt(refs.group(1)) > groups) {
        throw new IllegalArgumentException(
            "$" + refs.group(1) + " refers to a group the regex does not have");
      }
    }
  }

  /** The table name of the first rule whose regex matches the whole topic. */
  public Optional<String> apply(String topic) {
    for (Rule rule : rules) {
      Matcher m = rule.pattern().matcher(topic);
      if (m.matches()) {
        return Optional.of(m.replaceAll(rule.replacement()));
      }
    }
    return Optional.empty();
  }

  /**
   * True when a rule matches {@code topic} and names one fixed table, so every topic it matches
   * lands in that table.
   */
  public boolean routesToFixedName(String topic) {
    for (Rule rule : rules) {
      if (rule.pattern().matcher(topic).matches()) {
        return !rule.replacement().contains("$");
      }
    }
    return false;
  }

  public boolean isEmpty() {
    return rules.isEmpty();
  }
}
