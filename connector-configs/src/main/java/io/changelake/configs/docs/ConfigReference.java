package io.changelake.configs.docs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Renders a connector's {@link ConfigDef} as Markdown tables, one per group in the ConfigDef's own
 * group order, keys in their order within the group.
 */
public final class ConfigReference {
  private static final String UNGROUPED = "General";

  private ConfigReference() {}

  /**
   * @param title heading of this connector's section
   * @param intro a sentence under the heading
   * @param def the connector's ConfigDef
   */
  public static String render(String title, String intro, ConfigDef def) {
    Map<String, List<ConfigDef.ConfigKey>> byGroup = new LinkedHashMap<>();
    for (String group : def.groups()) {
      byGroup.put(group, new ArrayList<>());
    }
    for (ConfigDef.ConfigKey key : def.configKeys().values()) {
      byGroup
          .computeIfAbsent(key.group == null ? UNGROUPED : key.group, g -> new ArrayList<>())
          .add(key);
    }
    StringBuilder md = new StringBuilder();
    md.append("### ").append(title).append("\n\n").append(intro).append("\n");
    byGroup.forEach(
        (group, keys) -> {
          if (keys.isEmpty()) {
            return;
          }
          keys.sort(Comparator.comparingInt(k -> k.orderInGroup));
          md.append("\n#### ").append(group).append("\n\n");
          md.append("| key | type | default | valid values | importance | description |\n");
          md.append("|---|---|---|---|---|---|\n");
          for (ConfigDef.ConfigKey key : keys) {
            md.append("| `")
                .append(key.name)
                .append("` | ")
                .append(key.type.name().toLowerCase(Locale.ROOT))
                .append(" | ")
                .append(defaultValue(key))
                .append(" | ")
                .append(cell(key.validator == null ? "" : key.validator.toString()))
                .append(" | ")
                .append(
                    key.importance == null ? "" : key.importance.name().toLowerCase(Locale.ROOT))
                .append(" | ")
                .append(cell(key.documentation))
                .append(" |\n");
          }
        });
    return md.toString();
  }

  private static String defaultValue(ConfigDef.ConfigKey key) {
    if (!key.hasDefault()) {
      return "*required*";
    }
    if (key.defaultValue == null) {
      return "";
    }
    if (key.type == ConfigDef.Type.PASSWORD) {
      return "[hidden]";
    }
    String value = ConfigDef.convertToString(key.defaultValue, key.type);
    return value.isEmpty() ? "`\"\"`" : "`" + value.replace("|", "\\|") + "`";
  }

  private static String cell(String text) {
    return text == null ? "" : text.replace("|", "\\|").replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
